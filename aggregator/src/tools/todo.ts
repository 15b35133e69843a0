import { z } from 'zod';
import { OWN_TOOL_NAMES } from '../registry/naming.js';
import { defineTool } from './define.js';

const todoItem = z.object({
  content: z.string().min(1).max(2000).describe('What to do, in the imperative: "Add tests for the parser".'),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().max(2000).optional().describe('The same task as it is being done: "Adding tests".'),
});

const todoList = z.object({ todos: z.array(todoItem) });

const MARKS = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;

function renderTodos({ todos }: z.infer<typeof todoList>): string {
  if (todos.length === 0) return 'The todo list is empty.';
  return todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`).join('\n');
}

export const todoWrite = defineTool({
  name: OWN_TOOL_NAMES.todoWrite,
  title: 'Write the todo list',
  description:
    "Replaces this session's whole todo list in one call: send every item, done or not, with its status. At most one item should be in_progress.",
  capability: 'todo',
  input: z.object({ todos: z.array(todoItem).max(200) }),
  output: todoList,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  actions: ['memoryWrite'],
  render: renderTodos,
  async handle({ todos }, { engine }) {
    await engine.backend.state.writeTodos(engine.session.id, todos);
    return { todos };
  },
});

export const todoRead = defineTool({
  name: OWN_TOOL_NAMES.todoRead,
  title: 'Read the todo list',
  description: "This session's todo list, as todo_write last left it.",
  capability: 'todo',
  input: z.object({}),
  output: todoList,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  actions: ['read'],
  render: renderTodos,
  async handle(_input, { engine }) {
    return { todos: await engine.backend.state.readTodos(engine.session.id) };
  },
});
