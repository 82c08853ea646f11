// The herd command line: `herd <command> [--options] [--json]`, entered through main.ts. Exit 0 on
// success (and for help or the version), 2 for a wrong argument or a DATA_DIR another process holds
// (nothing written), 1 for anything else.
import os from 'node:os';
import { DataDirLockedError, nameLockHolder } from '../db/data-dir-lock.ts';
import { AppError } from '../errors.ts';
import { hasEmitted, loadCliConfig, parseCommandArgs, UsageError, type Command } from './cli.ts';
import { bootstrapCommand } from './commands/bootstrap.command.ts';
import { deletionsRunCommand } from './commands/deletions-run.command.ts';
import { keysCreateCommand } from './commands/keys-create.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { serveCommand } from './commands/serve.command.ts';
import { usersAddCommand } from './commands/users-add.command.ts';
import { commandHelp, overallHelp, packageVersion } from './help.ts';

// Each command imports what it runs when it runs: choosing one loads none of the others' modules,
// and `herd serve` starts opening its database before the server's modules load.
const commands: Command[] = [
  serveCommand,
  migrateCommand,
  bootstrapCommand,
  usersAddCommand,
  keysCreateCommand,
  deletionsRunCommand,
];

function findCommand(args: string[]): { command: Command; rest: string[] } | null {
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, i) => args[i] === word)) return { command, rest: args.slice(words.length) };
  }
  return null;
}

/** A refusal: the message on stderr and, with --json, as the one JSON object on stdout too. */
function refuse(args: string[], message: string, extra = '', fields: Record<string, unknown> = {}): number {
  process.stderr.write(`herd: ${message}\n${extra}`);
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify({ error: message, ...fields })}\n`);
  return 2;
}

/** Help and the version: on stdout, as {"help"} or {"version"} with --json; exit 0. */
function inform(args: string[], key: 'help' | 'version', text: string): number {
  process.stdout.write(
    args.includes('--json') ? `${JSON.stringify({ [key]: text })}\n` : text.endsWith('\n') ? text : `${text}\n`,
  );
  return 0;
}

function lockedMessage(error: DataDirLockedError, command: Command): string {
  return `${error.message}. The embedded database takes one process at a time: stop that process first, or ${command.instead}.`;
}

export async function main(args: string[]): Promise<number> {
  const words = args.filter((arg) => arg !== '--json');
  if (words.length === 1 && (words[0] === '--version' || words[0] === '-v'))
    return inform(args, 'version', packageVersion());
  if (['--help', '-h', 'help'].includes(words[0] ?? '') && words.length === 1)
    return inform(args, 'help', overallHelp(commands));
  if (words[0] === 'help') {
    const asked = findCommand(words.slice(1));
    if (!asked || asked.rest.length > 0)
      return refuse(args, `unknown command: ${words.slice(1).join(' ')}`, overallHelp(commands));
    return inform(args, 'help', commandHelp(asked.command));
  }
  const found = findCommand(args);
  if (found && (found.rest.includes('--help') || found.rest.includes('-h')))
    return inform(args, 'help', commandHelp(found.command));
  try {
    if (!found) throw new UsageError(args.length === 0 ? 'no command given' : `unknown command: ${args.join(' ')}`);
    const values = parseCommandArgs(found.command, found.rest);
    const config = loadCliConfig();
    nameLockHolder(`herd ${found.command.name}`);
    // The server closes gracefully on its own; any other command leaves through process.exit, so
    // the embedded database's lock is released on a signal too.
    if (found.command !== serveCommand) {
      for (const signal of ['SIGINT', 'SIGTERM'] as const)
        process.once(signal, () => process.exit(128 + os.constants.signals[signal]));
    }
    await found.command.run(values, { json: values.json === true, config });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return refuse(args, error.message, found ? '' : overallHelp(commands));
    if (error instanceof DataDirLockedError && found)
      return refuse(args, lockedMessage(error, found.command), '', { holder: error.holder });
    // A service refused an argument (an unknown e-mail, a scope, a limit): still the caller's input.
    if (error instanceof AppError && error.status < 500)
      return refuse(args, `${error.attr ? `${error.attr}: ` : ''}${error.detail}`);
    process.stderr.write(`herd: ${(error as Error).stack ?? String(error)}\n`);
    // --json promises one JSON object on stdout, a failure included (unless the result is out).
    if (args.includes('--json') && !hasEmitted())
      process.stdout.write(`${JSON.stringify({ error: (error as Error).message ?? String(error) })}\n`);
    return 1;
  }
}
