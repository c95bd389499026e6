import { pageData, ReportView } from "./report-view.js";

// The offline report: the page drawn from its data, nothing fetched.
new ReportView(pageData());
