import type { ActionClass } from '@toolmesh/core';
import { globMatcher } from './glob.js';
import type { ModeDefinition, RuleSet } from './modes.js';
import type { ToolFacts } from './tool-facts.js';

/** A tool as the policy sees it: both its names (globs match either) and its facts. */
export interface PolicySubject {
  exposed: string;
  name: string;
  facts: ToolFacts;
}

export type Verdict = 'allow' | 'confirm' | 'deny';

export interface PolicyDecision {
  verdict: Verdict;
  mode: string;
  /** The rule that decided, in words a model and a person can act on. */
  rule: string;
  /** For a denial: what would allow the call. */
  remedy?: string;
  /** For confirm: why a person must approve. */
  approvalReason?: string;
}

interface CompiledRules {
  tools: { pattern: string; matches: (name: string) => boolean }[];
  actions: ReadonlySet<ActionClass>;
}

interface CompiledMode {
  name: string;
  definition: ModeDefinition;
  allow?: CompiledRules;
  deny: CompiledRules;
  confirm: CompiledRules;
}

function compile(rules: RuleSet): CompiledRules {
  return {
    tools: rules.tools.map((pattern) => ({ pattern, matches: globMatcher(pattern) })),
    actions: new Set(rules.actions),
  };
}

function matchingGlob(rules: CompiledRules, subject: PolicySubject): string | undefined {
  return rules.tools.find(({ matches }) => matches(subject.exposed) || matches(subject.name))?.pattern;
}

function matchingAction(rules: CompiledRules, subject: PolicySubject): ActionClass | undefined {
  return subject.facts.actions.find((action) => rules.actions.has(action));
}

/**
 * The one table behind both `tools/list` and `tools/call`: per mode, what is allowed, what needs
 * a person's approval and what is denied. Name rules come before class rules, so a mode can
 * deny a class and still allow one tool of it (or the reverse); within each, deny wins.
 */
export class ModeTable {
  readonly #modes = new Map<string, CompiledMode>();
  readonly #always: CompiledRules;

  constructor(modes: Record<string, ModeDefinition>, alwaysAllowed: RuleSet) {
    for (const [name, definition] of Object.entries(modes)) {
      this.#modes.set(name, {
        name,
        definition,
        ...(definition.allow && { allow: compile(definition.allow) }),
        deny: compile(definition.deny),
        confirm: compile(definition.confirm),
      });
    }
    this.#always = compile(alwaysAllowed);
  }

  names(): string[] {
    return [...this.#modes.keys()];
  }

  has(mode: string): boolean {
    return this.#modes.has(mode);
  }

  definition(mode: string): ModeDefinition | undefined {
    return this.#modes.get(mode)?.definition;
  }

  decide(mode: string, subject: PolicySubject): PolicyDecision {
    const compiled = this.#modes.get(mode);
    if (!compiled) {
      return { verdict: 'deny', mode, rule: `mode ${mode} is not configured`, remedy: this.#modeList() };
    }
    const base = this.#allowOrDeny(compiled, subject);
    if (base.verdict === 'deny') return { ...base, remedy: this.#remedy(compiled, subject) };
    const approvalReason = this.#approvalReason(compiled, subject);
    return approvalReason ? { ...base, verdict: 'confirm', approvalReason } : base;
  }

  #allowOrDeny(mode: CompiledMode, subject: PolicySubject): PolicyDecision {
    const decided = (verdict: Verdict, rule: string): PolicyDecision => ({ verdict, mode: mode.name, rule });
    const always = matchingGlob(this.#always, subject) ?? matchingAction(this.#always, subject);
    if (always) return decided('allow', `${always} is allowed in every mode`);
    const deniedName = matchingGlob(mode.deny, subject);
    if (deniedName) return decided('deny', `mode ${mode.name} denies tools matching "${deniedName}"`);
    const allowedName = mode.allow && matchingGlob(mode.allow, subject);
    if (allowedName) return decided('allow', `mode ${mode.name} allows tools matching "${allowedName}"`);
    const deniedAction = matchingAction(mode.deny, subject);
    if (deniedAction) return decided('deny', `mode ${mode.name} denies the action class ${deniedAction}`);
    if (!mode.allow) return decided('allow', `mode ${mode.name} allows everything it does not deny`);
    const outside = subject.facts.actions.filter((action) => !mode.allow?.actions.has(action));
    if (outside.length === 0)
      return decided('allow', `mode ${mode.name} allows ${subject.facts.actions.join(', ')}`);
    return decided(
      'deny',
      `mode ${mode.name} allows only the action classes ${[...mode.allow.actions].join(', ') || '(none)'} and this tool does ${outside.join(', ')}`,
    );
  }

  #approvalReason(mode: CompiledMode, subject: PolicySubject): string | undefined {
    if (subject.facts.requiresApproval) return `${subject.exposed} requires approval for every call`;
    const glob = matchingGlob(mode.confirm, subject);
    if (glob) return `mode ${mode.name} asks for approval of tools matching "${glob}"`;
    const action = matchingAction(mode.confirm, subject);
    if (action) return `mode ${mode.name} asks for approval of the action class ${action}`;
    return undefined;
  }

  /** The modes that would let the call through. */
  #remedy(denying: CompiledMode, subject: PolicySubject): string {
    const allowing = [...this.#modes.values()]
      .filter((mode) => mode !== denying && this.#allowOrDeny(mode, subject).verdict !== 'deny')
      .map((mode) => mode.name);
    const exit = denying.definition.exitTo
      ? `, or ask to leave ${denying.name} mode with exit_plan_mode`
      : '';
    const modes =
      allowing.length > 0
        ? `It is allowed in mode ${allowing.join(', ')}; the operator sets the mode${exit}.`
        : 'No configured mode allows it.';
    return `${modes} A toolPolicy entry in the config can reclassify the tool.`;
  }

  #modeList(): string {
    return `Configured modes: ${this.names().join(', ')}.`;
  }
}
