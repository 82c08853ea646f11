// The herd command line: `herd <command> [--options] [--json]`. Exit 0 on success, 2 for a wrong
// argument (nothing written), 1 for anything else.
import { AppError } from '../errors.ts';
import { hasEmitted, loadCliConfig, parseCommandArgs, UsageError, type Command } from './cli.ts';
import { bootstrapCommand } from './commands/bootstrap.command.ts';
import { deletionsRunCommand } from './commands/deletions-run.command.ts';
import { keysCreateCommand } from './commands/keys-create.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { serveCommand } from './commands/serve.command.ts';
import { usersAddCommand } from './commands/users-add.command.ts';

const commands: Command[] = [serveCommand, migrateCommand, bootstrapCommand, usersAddCommand, keysCreateCommand, deletionsRunCommand];

const usage = () => `usage: herd <command> [options] [--json]\n\ncommands:\n${commands.map((c) => `  ${c.usage}`).join('\n')}\n`;

function findCommand(args: string[]): { command: Command; rest: string[] } | null {
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, i) => args[i] === word)) return { command, rest: args.slice(words.length) };
  }
  return null;
}

/** A refusal: the message on stderr and, with --json, as the one JSON object on stdout too. */
function refuse(args: string[], message: string, extra = ''): number {
  process.stderr.write(`herd: ${message}\n${extra}`);
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
  return 2;
}

export async function main(args: string[]): Promise<number> {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help')) {
    process.stdout.write(usage());
    return 0;
  }
  const found = findCommand(args);
  try {
    if (!found) throw new UsageError(args.length === 0 ? 'no command given' : `unknown command: ${args.join(' ')}`);
    const values = parseCommandArgs(found.command, found.rest);
    const config = loadCliConfig();
    await found.command.run(values, { json: values.json === true, config });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return refuse(args, error.message, found ? '' : usage());
    // A service refused an argument (an unknown e-mail, a scope, a limit): still the caller's input.
    if (error instanceof AppError && error.status < 500) return refuse(args, `${error.attr ? `${error.attr}: ` : ''}${error.detail}`);
    process.stderr.write(`herd: ${(error as Error).stack ?? String(error)}\n`);
    // --json promises one JSON object on stdout, a failure included (unless the result is out).
    if (args.includes('--json') && !hasEmitted()) process.stdout.write(`${JSON.stringify({ error: (error as Error).message ?? String(error) })}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
// serve keeps the process alive on its own; every other command is done here.
if (code !== 0) process.exit(code);
