import { descriptionOf } from "../src/html/client/event-detail.js";
import type { Piece } from "../src/html/client/page-data.js";
import type { ReportData } from "../src/html/report-data.js";

/** The text of a piece of an event's description, without its tone. */
const textOf = (piece: Piece): string => (typeof piece === "string" ? piece : piece[1]);

/**
 * Each event of a report page as the page says it (`title: summary`), decoded from the page's data
 * with the page's own code: the page keeps each kind of description once and fills in its words.
 */
export function reportEventTexts(html: string): string[] {
  const json = /<script type="application\/json" id="run-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (json === undefined) throw new Error("the page holds no run data");
  const data = JSON.parse(json) as ReportData;
  return data.rows.map((row) => {
    const { title, summary } = descriptionOf(data, row);
    return `${title}: ${summary.map(textOf).join("")}`;
  });
}
