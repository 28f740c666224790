// The Playground's /docs/: README.md and docs/**/*.md rendered to HTML at build time by `marked` (pinned in
// package.json), into build/playground/docs/ (served by the gateway as static assets). Links between the rendered pages
// are rewritten to their URLs (/docs/, /docs/<name>, /docs/protocol/<name>; the assets' default html_handling serves
// <name>.html there); a link to any other file of the repository is kept as its text, since the Playground does not
// serve the sources. Headings get GitHub's anchors, so `file.md#section` links land where they do on GitHub.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Marked } from "marked";

/** The Markdown files rendered, relative to `root` (posix): README.md, then docs/ and its subfolders, sorted. */
export function docSources(root) {
  const found = ["README.md"];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith(".md")) found.push(rel);
    }
  };
  walk("docs");
  return found;
}

/** The URL a source is served at: README.md → /docs/, docs/x/README.md → /docs/x/, docs/x/y.md → /docs/x/y. */
export function docUrl(source) {
  if (source === "README.md") return "/docs/";
  const rel = source.replace(/^docs\//, "").replace(/\.md$/, "");
  return `/docs/${rel.endsWith("README") ? rel.slice(0, -"README".length) : rel}`;
}

const fileOf = (url) => (url.endsWith("/") ? `${url}index.html` : `${url}.html`).slice("/docs/".length);

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, ... */
function slugger() {
  const seen = new Map();
  return (text) => {
    const base = text.toLowerCase().replace(/<[^>]*>/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}-${n}` : base;
  };
}

const escape = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

function page(title, body, nav) {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(title)} · sandbox-workers docs</title>
  <link rel="stylesheet" href="/docs/docs.css">
</head>
<body>
  <header><a href="/">sandbox-workers <span>Playground</span></a> <a href="/docs/">Docs</a></header>
  <div class="layout">
    <nav aria-label="Documentation pages"><ul>${nav}</ul></nav>
    <main id="doc">${body}</main>
  </div>
</body>
</html>
`;
}

/** Renders every source into `out` (build/playground/docs/). Returns the files written, relative to `out`. */
export function buildDocs(root, out) {
  const sources = docSources(root);
  rmSync(out, { recursive: true, force: true }); // a page whose source is gone goes too
  const known = new Set(sources);
  const written = [];
  const titles = new Map(sources.map((s) => [s, (readFileSync(path.join(root, s), "utf8").match(/^#\s+(.+)$/m)?.[1] ?? s).replace(/[`*]/g, "")]));
  for (const source of sources) {
    const slug = slugger();
    const resolve = (href) => {
      if (/^[a-z]+:|^\/\/|^#/i.test(href)) return href; // absolute or same page
      const [file, hash] = href.split("#");
      let target = path.posix.normalize(path.posix.join(path.posix.dirname(source), decodeURI(file)));
      if (target.endsWith("/")) target += "README.md";
      if (known.has(target)) return docUrl(target) + (hash ? `#${hash}` : "");
      if (target.startsWith("docs/images/")) return `/${target}`;
      return null; // a source file: not served here
    };
    const marked = new Marked({ gfm: true });
    marked.use({
      renderer: {
        heading({ tokens, depth, text }) {
          return `<h${depth} id="${escape(slug(text))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
        },
        link({ href, title, tokens }) {
          const inner = this.parser.parseInline(tokens);
          const url = resolve(href);
          if (url === null) return `<span class="repo-path" title="${escape(href)} in the repository">${inner}</span>`;
          return `<a href="${escape(url)}"${title ? ` title="${escape(title)}"` : ""}>${inner}</a>`;
        },
        image({ href, text }) {
          const url = resolve(href);
          return url ? `<img src="${escape(url)}" alt="${escape(text)}">` : escape(text);
        },
      },
    });
    const body = marked.parse(readFileSync(path.join(root, source), "utf8"));
    const nav = sources.map((s) => `<li${s === source ? ' aria-current="page"' : ""}><a href="${docUrl(s)}">${escape(s === "README.md" ? "Overview (README)" : titles.get(s))}</a></li>`).join("");
    const file = fileOf(docUrl(source));
    mkdirSync(path.dirname(path.join(out, file)), { recursive: true });
    writeFileSync(path.join(out, file), page(titles.get(source), body, nav));
    written.push(file);
  }
  copyFileSync(path.join(root, "gateway/page/docs.css"), path.join(out, "docs.css"));
  // The README's picture is a build output of the page suite (docs/images/playground.png), copied when present.
  if (existsSync(path.join(root, "docs/images"))) {
    mkdirSync(path.join(out, "images"), { recursive: true });
    for (const f of readdirSync(path.join(root, "docs/images"))) copyFileSync(path.join(root, "docs/images", f), path.join(out, "images", f));
  }
  return written;
}
