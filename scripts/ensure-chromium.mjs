// The HTML report's test renders a page in headless Chromium. Debian's `chromium` package is the
// one that works here (a test tool's own browser download cannot be fetched); this installs it
// when it is missing and this process may install packages, and says what to do otherwise.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const CHROMIUM = "/usr/bin/chromium";
if (existsSync(CHROMIUM)) process.exit(0);
if (process.getuid?.() !== 0) {
  console.error(`${CHROMIUM} is missing: install Debian's chromium package (sudo apt-get install -y chromium).`);
  process.exit(1);
}
const run = (...args) =>
  execFileSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
run("update");
run("install", "-y", "chromium");
