// The first account of an empty install, created from the browser: the server's setup token
// admits the request, and `bootstrap` (the command's own service) creates the account.
import type { Deps } from '../../deps.ts';
import { permissionDenied } from '../../errors.ts';
import { firstAccountWire, type FirstAccountWire } from '../bootstrap/bootstrap.schemas.ts';
import { bootstrap, setupClosed, type BootstrapInput } from '../bootstrap/bootstrap.service.ts';
import { anyUserExists } from '../users/users.repository.ts';

/** Whether this server holds a setup token and the database still no user (an account closes it for good). */
export async function isSetupOpen(deps: Deps): Promise<boolean> {
  const gate = deps.setup;
  if (!gate?.isOpen) return false;
  if (!(await anyUserExists(deps.db))) return true;
  gate.close();
  return false;
}

/** 404 once setup is closed (whatever the token), 403 for a missing or wrong token. */
export async function admitSetup(deps: Deps, token: unknown): Promise<void> {
  if (!(await isSetupOpen(deps))) throw setupClosed();
  if (!deps.setup?.matches(token))
    throw permissionDenied('The setup token is missing or wrong: open the link the server printed.');
}

export async function createFirstAccount(deps: Deps, input: BootstrapInput): Promise<FirstAccountWire> {
  const result = await bootstrap(deps, input, { firstAccount: true });
  deps.setup?.close();
  return firstAccountWire(result);
}
