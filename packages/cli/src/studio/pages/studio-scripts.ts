import { bundleAddress } from "../../html/client-bundle.js";

/** The scripts of the studio's pages, by the name they are served at (`/scripts/<name>`), and their compiled entry modules. */
export const STUDIO_SCRIPTS = {
  run: { name: "run.js", entry: "studio/client/studio-run-main.js" },
  list: { name: "list.js", entry: "studio/client/studio-list-main.js" },
} as const;

export type StudioScript = (typeof STUDIO_SCRIPTS)[keyof typeof STUDIO_SCRIPTS];

/** The address a page loads a script from. */
export function scriptAddress(script: StudioScript): string {
  return bundleAddress(`/scripts/${script.name}`, script.entry);
}
