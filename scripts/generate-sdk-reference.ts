/**
 * Writes docs/sdk-reference.md from the code: every name that packages/sdk/src/index.ts exports,
 * with its signature and its doc comment, grouped by the module that defines it (in the order the
 * index lists them), behind a table of contents. Nothing is written by hand, so the reference
 * cannot drift from the SDK; scripts/test/docs.test.ts fails when the committed page is stale.
 *
 * TypeScript 7 has no compiler API for JavaScript, so this reads the code with ts-morph, which
 * brings its own TypeScript. Signatures are the declared text (parameters, return types, members)
 * with bodies left out; only a missing return type is asked of the type checker.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ClassDeclaration,
  type ExportedDeclarations,
  type FunctionDeclaration,
  type JSDocableNode,
  type MethodDeclaration,
  Node,
  Project,
  type SourceFile,
  SyntaxKind,
} from 'ts-morph';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SDK_INDEX = `${ROOT}packages/sdk/src/index.ts`;
export const SDK_REFERENCE_DOC = `${ROOT}docs/sdk-reference.md`;

/** A constant's initializer is shown when it is this short; longer ones are elided. */
const INITIALIZER_CHARS_MAX = 80;

interface Entry {
  readonly name: string;
  readonly kind: 'class' | 'function' | 'interface' | 'type' | 'constant';
  readonly signature: string;
  readonly doc: string;
  /** Members of a class: signature and doc each. */
  readonly members: readonly { readonly signature: string; readonly doc: string }[];
}

interface Group {
  readonly module: string;
  readonly summary: string;
  readonly entries: Entry[];
}

const KIND_ORDER: readonly Entry['kind'][] = ['class', 'function', 'interface', 'type', 'constant'];

export function sdkReferenceMarkdown(): string {
  const project = new Project({
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      allowImportingTsExtensions: true,
      module: 199 /* NodeNext */,
      moduleResolution: 99 /* NodeNext */,
      target: 9 /* ES2022 */,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      resolveJsonModule: true,
      // The workspace's packages resolve to their sources, as in tsconfig.json: without this, a
      // package's built dist/ (present or not, depending on what ran before) changed the output.
      baseUrl: ROOT,
      paths: { '@venue/*': ['./packages/*/src/index.ts'] },
    },
  });
  const index = project.addSourceFileAtPath(SDK_INDEX);
  project.resolveSourceFileDependencies();
  return render(groupsOf(index));
}

/** The index's export statements, in order: each names a module and the names taken from it. */
function groupsOf(index: SourceFile): Group[] {
  const groups = new Map<string, Group>();
  const exported = index.getExportedDeclarations();
  for (const statement of index.getExportDeclarations()) {
    const target = statement.getModuleSpecifierSourceFile();
    if (target === undefined) throw new Error(`cannot resolve ${statement.getModuleSpecifierValue()}`);
    const module = relative(`${ROOT}packages/sdk/src`, target.getFilePath());
    let group = groups.get(module);
    if (group === undefined) {
      group = { module, summary: moduleSummary(target), entries: [] };
      groups.set(module, group);
    }
    for (const specifier of statement.getNamedExports()) {
      const name = specifier.getAliasNode()?.getText() ?? specifier.getName();
      for (const declaration of exported.get(name) ?? []) {
        const entry = entryOf(name, declaration);
        if (entry !== null) group.entries.push(entry);
      }
    }
  }
  for (const group of groups.values()) {
    group.entries.sort(
      (a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.name.localeCompare(b.name),
    );
  }
  return [...groups.values()];
}

/** The module's opening doc comment (the one before its first declaration), first paragraph. */
function moduleSummary(file: SourceFile): string {
  const first = file.getStatements().find((s) => !Node.isImportDeclaration(s));
  if (first === undefined || !Node.isJSDocable(first)) return '';
  const docs = first.getJsDocs();
  // A file header is a doc comment followed by another one, or standing before a non-exported node.
  if (docs.length < 2) return '';
  return paragraph(docs[0]?.getDescription() ?? '');
}

function entryOf(name: string, node: ExportedDeclarations): Entry | null {
  if (Node.isClassDeclaration(node)) {
    return { name, kind: 'class', signature: classHead(node), doc: docOf(node), members: classMembers(node) };
  }
  if (Node.isFunctionDeclaration(node)) {
    return { name, kind: 'function', signature: functionSignature(node), doc: docOf(node), members: [] };
  }
  if (Node.isInterfaceDeclaration(node)) {
    return { name, kind: 'interface', signature: withoutDocs(node.getText()), doc: docOf(node), members: [] };
  }
  if (Node.isTypeAliasDeclaration(node)) {
    return { name, kind: 'type', signature: withoutDocs(node.getText()), doc: docOf(node), members: [] };
  }
  if (Node.isVariableDeclaration(node)) {
    const statement = node.getVariableStatement();
    const type = node.getTypeNode()?.getText() ?? node.getType().getText(node);
    const initializer = node.getInitializer()?.getText() ?? '';
    const shown = initializer.length <= INITIALIZER_CHARS_MAX && !initializer.includes('\n');
    const signature = `const ${name}: ${type}${shown ? ` = ${initializer}` : ''}`;
    return {
      name,
      kind: 'constant',
      signature,
      doc: statement === undefined ? '' : docOf(statement),
      members: [],
    };
  }
  return null;
}

function classHead(node: ClassDeclaration): string {
  const heritage = node.getHeritageClauses().map((clause) => clause.getText());
  return [`class ${node.getName() ?? ''}`, ...heritage].join(' ');
}

/** Public members only: no `#private`, `private` or `protected`, nothing marked `@internal`. */
function classMembers(node: ClassDeclaration): { signature: string; doc: string }[] {
  const members: { signature: string; doc: string }[] = [];
  for (const member of node.getMembers()) {
    if (Node.isConstructorDeclaration(member)) {
      if (member.getScope() !== 'public' || isInternal(member)) continue;
      const params = member.getParameters().map((p) => p.getText());
      members.push({ signature: `constructor(${params.join(', ')})`, doc: docOf(member) });
      continue;
    }
    if (
      !(
        Node.isMethodDeclaration(member) ||
        Node.isPropertyDeclaration(member) ||
        Node.isGetAccessorDeclaration(member)
      )
    ) {
      continue;
    }
    if (member.getNameNode().getKind() === SyntaxKind.PrivateIdentifier) continue;
    if (member.getScope() !== 'public' || isInternal(member)) continue;
    const isStatic = member.isStatic() ? 'static ' : '';
    if (Node.isMethodDeclaration(member)) {
      if (member.getOverloads().length > 0) {
        for (const overload of member.getOverloads()) {
          members.push({ signature: isStatic + methodSignature(overload), doc: docOf(overload) });
        }
        continue;
      }
      members.push({ signature: isStatic + methodSignature(member), doc: docOf(member) });
    } else if (Node.isGetAccessorDeclaration(member)) {
      const type = member.getReturnTypeNode()?.getText() ?? member.getReturnType().getText(member);
      members.push({ signature: `${isStatic}get ${member.getName()}(): ${type}`, doc: docOf(member) });
    } else {
      const readonly = member.isReadonly() ? 'readonly ' : '';
      const type = member.getTypeNode()?.getText() ?? member.getType().getText(member);
      const optional = member.hasQuestionToken() ? '?' : '';
      members.push({
        signature: `${isStatic}${readonly}${member.getName()}${optional}: ${type}`,
        doc: docOf(member),
      });
    }
  }
  return members;
}

function methodSignature(node: MethodDeclaration): string {
  const params = node.getParameters().map((p) => p.getText());
  const type = node.getReturnTypeNode()?.getText() ?? node.getReturnType().getText(node);
  const modifiers = node.isAsync() ? 'async ' : '';
  const typeParams = node.getTypeParameters().map((t) => t.getText());
  const generic = typeParams.length > 0 ? `<${typeParams.join(', ')}>` : '';
  return `${modifiers}${node.getName()}${generic}(${params.join(', ')}): ${type}`;
}

function functionSignature(node: FunctionDeclaration): string {
  const params = node.getParameters().map((p) => p.getText());
  const type = node.getReturnTypeNode()?.getText() ?? node.getReturnType().getText(node);
  const typeParams = node.getTypeParameters().map((t) => t.getText());
  const generic = typeParams.length > 0 ? `<${typeParams.join(', ')}>` : '';
  const modifiers = node.isAsync() ? 'async ' : '';
  return `${modifiers}function ${node.getName() ?? ''}${generic}(${params.join(', ')}): ${type}`;
}

function isInternal(node: JSDocableNode): boolean {
  return node.getJsDocs().some((doc) => doc.getTags().some((tag) => tag.getTagName() === 'internal'));
}

/** The declaration's last doc comment (the one that belongs to it), as markdown text. */
function docOf(node: JSDocableNode): string {
  const doc = node.getJsDocs().at(-1);
  if (doc === undefined) return '';
  const description = doc.getDescription().trim();
  const tags = doc
    .getTags()
    .filter((tag) => tag.getTagName() !== 'internal')
    .map((tag) => `@${tag.getTagName()} ${tag.getCommentText()?.trim() ?? ''}`.trim());
  return [description, ...tags].filter((part) => part !== '').join('\n\n');
}

/** Declarations inside an interface keep their member docs; leading file comments are dropped. */
function withoutDocs(text: string): string {
  return text.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').replace(/^export\s+/, '');
}

function paragraph(text: string): string {
  return (
    text
      .trim()
      .split(/\n\s*\n/)[0]
      ?.replace(/\s*\n\s*/g, ' ') ?? ''
  );
}

function anchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** Headings for the SDK's modules; a module not named here is titled by its file name alone. */
const MODULE_TITLES: Readonly<Record<string, string>> = {
  'attestation.ts': 'Attestation and trust anchors',
  'client.ts': 'Connecting and the REST client',
  'durable-nonces.ts': 'Nonces that survive restarts',
  'errors.ts': 'Errors',
  'key-file.ts': 'The key file',
  'limits.ts': 'Limits and defaults',
  'note-wallet.ts': 'Notes and balances',
  'order-request.ts': 'Order requests',
  'order-store.ts': 'The local order view',
  'pinning.ts': 'Certificate pinning',
  'private-files.ts': 'Owner-only durable files',
  'sealed-log.ts': 'Sealed local logs',
  'signing.ts': 'Signing orders',
  'stream.ts': 'The session stream',
  'tokens.ts': 'Tokens and clocks',
  'trader.ts': 'Trading',
};

function groupTitle(group: Group): string {
  const title = MODULE_TITLES[group.module];
  return title === undefined ? `\`${group.module}\`` : `${title} (\`${group.module}\`)`;
}

function render(groups: readonly Group[]): string {
  const lines = [
    '# SDK reference',
    '',
    '<!-- Generated by scripts/generate-sdk-reference.ts from packages/sdk/src/index.ts. Do not edit; run `npm run docs`. -->',
    '',
    'Everything `@venue/sdk` exports, with its signature and documentation as written in the code.',
    'docs/sdk.md explains how the parts fit together; this page is the exact contract. Names are grouped',
    'by the module that defines them, in the order the package index exports them.',
    '',
    '## Contents',
    '',
  ];
  for (const group of groups) {
    lines.push(`- [${groupTitle(group)}](#${anchor(groupTitle(group))})`);
    for (const entry of group.entries)
      lines.push(`  - [\`${entry.name}\`](#${anchor(entry.name)}) (${entry.kind})`);
  }
  lines.push('');
  for (const group of groups) {
    lines.push(`## ${groupTitle(group)}`, '');
    if (group.summary !== '') lines.push(group.summary, '');
    for (const entry of group.entries) {
      lines.push(`### ${entry.name}`, '', '```ts', entry.signature, '```', '');
      if (entry.doc !== '') lines.push(entry.doc, '');
      for (const member of entry.members) {
        lines.push(`- \`${member.signature.replace(/\s*\n\s*/g, ' ')}\``);
        if (member.doc !== '') lines.push(`  ${member.doc.replace(/\n\n/g, ' ').replace(/\n/g, '\n  ')}`);
      }
      if (entry.members.length > 0) lines.push('');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SDK_REFERENCE_DOC, sdkReferenceMarkdown());
  console.error('wrote docs/sdk-reference.md');
}
