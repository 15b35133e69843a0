import type { AnyToolDefinition } from '@toolmesh/core';
import type { TicketStore } from '../store/store.js';
import { createTicket } from './create.js';
import { ticketPrLink, ticketRelation } from './links.js';
import {
  getTicket,
  listReadyTickets,
  listTicketRelations,
  listTickets,
  searchTickets,
  ticketHistory,
} from './read.js';
import {
  addTicketCollaborator,
  assignTicket,
  closeTicket,
  commentOnTicket,
  delegateTicket,
  failTicket,
  reassignTicket,
  updateTicket,
} from './update.js';

export const TICKET_TOOLS: readonly AnyToolDefinition<TicketStore>[] = [
  createTicket,
  getTicket,
  listTickets,
  updateTicket,
  assignTicket,
  reassignTicket,
  addTicketCollaborator,
  commentOnTicket,
  closeTicket,
  failTicket,
  delegateTicket,
  ticketPrLink,
  ticketRelation,
  listTicketRelations,
  searchTickets,
  ticketHistory,
  listReadyTickets,
];
