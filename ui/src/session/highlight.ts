// Syntax highlighting: highlight.js *core* with a chosen set of languages.
// Why highlight.js core: synchronous (diff lines and streamed Markdown are
// highlighted during render, no async grammar loading as with shiki), well
// kept, and registering languages one by one keeps the bundle to what we
// use (~60 KB min for these) instead of the full 190-language build.
// Output is HTML with every source character escaped by highlight.js.

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = { bash, c, cpp, css, diff, go, ini, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, grammar] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, grammar);

const BY_EXTENSION: Record<string, string> = {
  sh: "bash", bash: "bash", zsh: "bash",
  c: "c", h: "c",
  cc: "cpp", cpp: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp",
  css: "css", scss: "css",
  diff: "diff", patch: "diff",
  go: "go",
  ini: "ini", toml: "ini", cfg: "ini",
  java: "java", kt: "java",
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
  json: "json", jsonl: "json", ipynb: "json",
  md: "markdown", markdown: "markdown",
  py: "python", pyi: "python",
  rs: "rust",
  sql: "sql",
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  html: "xml", htm: "xml", xml: "xml", svg: "xml", vue: "xml",
  yml: "yaml", yaml: "yaml",
};

/** The registered language for a file path, or null. */
export function languageForPath(path: string): string | null {
  const base = path.split("/").pop() ?? path;
  if (base === "Dockerfile" || base === "Makefile") return "bash";
  const dot = base.lastIndexOf(".");
  if (dot < 0) return null;
  return BY_EXTENSION[base.slice(dot + 1).toLowerCase()] ?? null;
}

/** A language name from a Markdown fence (`ts`, `python`, `shell`…), or null. */
export function languageForFence(name: string): string | null {
  const n = name.toLowerCase();
  if (hljs.getLanguage(n)) return n;
  if (n === "shell" || n === "console") return "bash";
  return BY_EXTENSION[n] ?? null;
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Highlighted HTML for `code` (escaped plain text when there is no language). */
export function highlight(code: string, language: string | null): string {
  if (language && hljs.getLanguage(language)) {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  }
  return escapeHtml(code);
}
