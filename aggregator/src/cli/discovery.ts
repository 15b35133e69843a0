import { createLogger } from '@toolmesh/core';
import { associationStoreFor } from '../state/association-store.js';
import { openState } from '../state/open-state.js';
import { type Command, parseFlags, print } from './command.js';
import { takeStateArgs } from './state-flags.js';
import { UsageError } from './usage-error.js';

/**
 * `toolmesh discovery forget`: forgets what tool search learnt from use, where the state lives
 * (--redis, --postgres, --config as for the other commands): the data directory's store, or the
 * fleet's Redis, whose running replicas forget it too.
 */
export const discovery: Command = {
  async run(args) {
    const { settings, rest } = takeStateArgs(args);
    const { positionals } = parseFlags('discovery', rest, {});
    if (positionals.length !== 1 || positionals[0] !== 'forget') {
      throw new UsageError('discovery takes one subcommand: forget (what tool search learnt from use)');
    }
    const state = await openState(settings);
    try {
      const store = associationStoreFor(state, createLogger({ scope: 'toolmesh', level: 'warning' }));
      if (!store)
        throw new Error(`the store of what discovery learnt beside ${state.location} cannot be opened`);
      try {
        const count = (await store.all()).length;
        await store.clear();
        print(`forgot ${count} learnt link${count === 1 ? '' : 's'} between search words and tools`);
        return 0;
      } finally {
        await store.close();
      }
    } finally {
      await state.close();
    }
  },
};
