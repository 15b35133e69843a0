import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { SessionTable } from '../src/http-sessions.js';

function transport() {
  return {
    closed: false,
    async close() {
      this.closed = true;
    },
  };
}

describe('SessionTable', () => {
  it('closes sessions idle past the limit, but never one with a request open', () => {
    const table = new SessionTable<ReturnType<typeof transport>>(1000);
    const idle = transport();
    const streaming = transport();
    table.add('idle', idle);
    table.add('streaming', streaming);
    const openResponse = new EventEmitter() as unknown as Response;
    expect(table.use('streaming', openResponse)).toBe(streaming);
    expect(table.sweep(Date.now() + 5000)).toBe(1);
    expect(idle.closed).toBe(true);
    expect(streaming.closed).toBe(false);
    expect(table.use('idle', new EventEmitter() as unknown as Response)).toBeUndefined();
    (openResponse as unknown as EventEmitter).emit('close');
    expect(table.sweep(Date.now() + 5000)).toBe(1);
    expect(table.size).toBe(0);
  });
});
