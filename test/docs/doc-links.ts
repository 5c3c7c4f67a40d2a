import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import GithubSlugger from 'github-slugger';
import ignore from 'ignore';
import MarkdownIt, { type Token } from 'markdown-it';

/** The Markdown a reader of the repository opens: the README, docs/ and the bench's history. */
export function markdownFiles(root: string): string[] {
  const under = (folder: string) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.md'))
      .map((path) => posix.join(folder, path));
  return ['README.md', ...under('docs'), ...under('bench')].sort();
}

/** Inline code that names a file of the repository, as the docs cite one: `src/auth/http/bearer.ts`. */
const REPOSITORY_PATH = /^(?:src|test|web|docs|bench|migrations)\/\S*$/;
/** A glob or a placeholder (`src/**\/*.spec.ts`, `bench/results/logs/<name>.log`) names no one file. */
const PATTERN = /[*?<>{}…$]/;
/** A link with a scheme (https:, mailto:) or protocol-relative leaves the repository. */
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

const markdown = new MarkdownIt({ html: true });

interface Reference {
  line: number;
  kind: 'link' | 'path';
  target: string;
}

/** The links, images and cited paths of one file, each with its line; and its headings' anchors. */
function read(text: string): { references: Reference[]; anchors: Set<string> } {
  const references: Reference[] = [];
  const anchors = new Set<string>();
  const slugger = new GithubSlugger();
  const tokens = markdown.parse(text, {});
  // a table cell's inline token has no line of its own: it is on its row's
  let blockLine = 1;
  tokens.forEach((token, index) => {
    if (token.map) blockLine = token.map[0] + 1;
    if (token.type === 'heading_open') anchors.add(slugger.slug(plainText(tokens[index + 1]!)));
    if (token.type !== 'inline') return;
    let line = blockLine;
    for (const child of token.children ?? []) {
      if (child.type === 'softbreak' || child.type === 'hardbreak') line++;
      else if (child.type === 'link_open')
        references.push({ line, kind: 'link', target: String(child.attrGet('href')) });
      else if (child.type === 'image') references.push({ line, kind: 'link', target: String(child.attrGet('src')) });
      else if (child.type === 'code_inline' && REPOSITORY_PATH.test(child.content))
        references.push({ line, kind: 'path', target: child.content });
    }
  });
  return { references, anchors };
}

/** A heading's text as GitHub slugs it: its words and its code, without the markup. */
function plainText(inline: Token): string {
  return (inline.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('');
}

/**
 * Every broken reference of `files` (paths relative to `root`), as `file:line: what is wrong`:
 * a relative link or image to a file that does not exist, an `#anchor` (on the same page or
 * another) that no heading of that page has, and a repository path in backticks that does not
 * exist. Paths that .gitignore covers (the bench's results) are outputs, not files of the
 * repository, and are not looked for.
 */
export function brokenLinks(root: string, files: string[]): string[] {
  const gitignore = ignore().add(readFileSync(join(root, '.gitignore'), 'utf8'));
  const pages = new Map<string, ReturnType<typeof read>>();
  const page = (file: string) => {
    if (!pages.has(file)) pages.set(file, read(readFileSync(join(root, file), 'utf8')));
    return pages.get(file)!;
  };
  const exists = (path: string) => !path.startsWith('../') && existsSync(join(root, path));

  const problems: string[] = [];
  for (const file of files) {
    for (const { line, kind, target } of page(file).references) {
      const at = `${file}:${line}`;
      if (kind === 'path') {
        const path = target.replace(/:\d+(?::\d+)?$/, '');
        if (PATTERN.test(path) || gitignore.ignores(path)) continue;
        if (!exists(path)) problems.push(`${at}: \`${target}\` names a file that does not exist`);
        continue;
      }
      if (EXTERNAL.test(target)) continue;
      const [beforeHash, anchor] = target.split('#', 2) as [string, string | undefined];
      const pathPart = decodeURIComponent(beforeHash.split('?')[0]!);
      const resolved =
        pathPart === ''
          ? file
          : pathPart.startsWith('/')
            ? pathPart.slice(1)
            : posix.normalize(posix.join(posix.dirname(file), pathPart));
      if (!exists(resolved)) {
        problems.push(`${at}: link to ${target}: ${resolved} does not exist`);
        continue;
      }
      if (anchor === undefined || !resolved.endsWith('.md')) continue;
      if (!page(resolved).anchors.has(decodeURIComponent(anchor)))
        problems.push(`${at}: link to ${target}: ${resolved} has no heading with the anchor #${anchor}`);
    }
  }
  return problems;
}
