/**
 * The README's configuration table, written from `CONFIG_VARIABLES` so the two cannot disagree:
 * `npm run docs:config` puts it between the markers, and a test fails while they differ.
 */
import { CONFIG_VARIABLES, type ConfigVariable, defaultOf } from './config';

export const CONFIG_TABLE_START = '<!-- configuration: written from shared/src/config.ts by npm run docs:config -->';
export const CONFIG_TABLE_END = '<!-- end of configuration -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function defaultText(spec: ConfigVariable): string {
  if (spec.shown !== undefined) return spec.shown;
  const [embedded, distributed] = [defaultOf(spec, 'embedded'), defaultOf(spec, 'distributed')];
  const text = (given: string | undefined) => (given === undefined ? '(none)' : `\`${given}\``);
  return embedded === distributed ? text(embedded) : `${text(embedded)} embedded, ${text(distributed)} distributed`;
}

/** One row per variable: its name, what it takes, its default and what it means. */
export function configurationTable(): string {
  const rows = (Object.entries(CONFIG_VARIABLES) as [string, ConfigVariable][]).map(
    ([name, spec]) =>
      `| \`${name}\` | ${cell(spec.kind.takes)} | ${cell(defaultText(spec))} | ${cell(spec.description)} |`,
  );
  return ['| variable | takes | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** `text` with the table between its markers replaced by the current one. */
export function withConfigurationTable(text: string): string {
  const start = text.indexOf(CONFIG_TABLE_START);
  const end = text.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`the markers ${CONFIG_TABLE_START} and ${CONFIG_TABLE_END} are missing`);
  return `${text.slice(0, start + CONFIG_TABLE_START.length)}\n${configurationTable()}\n${text.slice(end)}`;
}
