export { renderPlanText, type PlanTextOptions } from './render-plan-text.js';
export { renderPlanMarkdown, planMarker, type PlanMarkdownOptions } from './render-plan-markdown.js';
export { renderPlanJson, parsePlanJson } from './render-plan-json.js';
export { renderApplyResultText, renderApplyResultJson } from './render-apply-result.js';
export { escapeMarkdown, escapeHtml } from './escape-markdown.js';
export { NO_CHANGES, guardLines } from './format-plan.js';
export { renderVerifyBudget, renderVerifyJson, renderVerifyOverCap, renderVerifyText } from './render-verify.js';
export { renderDriftText } from './render-drift.js';
export { stableJson } from './stable-json.js';
