// What `herd --help`, `herd help [command]`, `herd <command> --help` and `herd --version` print.
import fs from 'node:fs';
import type { Command } from './cli.ts';

function table(rows: [string, string][]): string {
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`.trimEnd()).join('\n');
}

export function commandHelp(command: Command): string {
  const flags: [string, string][] = [
    ...command.flags,
    ['--json', `print exactly one JSON object on stdout: ${command.jsonResult}`],
    ['-h, --help', 'print this help and exit'],
  ];
  return [
    `usage: ${command.usage}`,
    '',
    command.summary,
    '',
    'options:',
    table(flags),
    '',
    `It reads the same environment as the server (DATABASE_URL, DATA_DIR, …). The embedded database (no DATABASE_URL) takes one process at a time: while another herd process holds DATA_DIR this exits 2; stop that process first, or ${command.instead}.`,
    '',
  ].join('\n');
}

export function overallHelp(commands: Command[]): string {
  return [
    'usage: herd <command> [options] [--json]',
    '',
    'commands:',
    table(commands.map((command) => [command.name, command.summary])),
    '',
    '`herd <command> --help` (or `herd help <command>`) lists its options; `herd --version` prints the version.',
    'A wrong argument prints what is wrong and exits 2 without writing anything.',
    '',
  ].join('\n');
}

export function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
