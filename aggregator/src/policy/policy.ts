import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { globMatcher } from './glob.js';
import { ModeTable, type PolicyDecision, type PolicySubject } from './mode-table.js';
import { ALWAYS_ALLOWED, BUILT_IN_MODES, type ModeDefinition, type RuleSet } from './modes.js';
import { declaredFacts, overriddenFacts, type ToolFacts, type ToolFactsOverride } from './tool-facts.js';

export interface PolicyConfig {
  /** Modes by name; each replaces the built-in mode of that name. */
  modes: Record<string, ModeDefinition>;
  alwaysAllowed?: RuleSet;
  /** Tool-name glob → facts that replace what the server declared. */
  toolPolicy: Record<string, ToolFactsOverride>;
}

/** A tool by the two names policy rules can use. */
export interface NamedTool {
  exposed: string;
  tool: Tool;
}

/**
 * The mode table plus every tool's facts, as the config amends them. A reloaded config makes a
 * new Policy, so what one has worked out (facts, decisions) never outlives the config it came from.
 */
export class Policy {
  readonly table: ModeTable;
  readonly #overrides: { matches: (name: string) => boolean; facts: ToolFactsOverride }[];
  readonly #facts = new WeakMap<Tool, ToolFacts>();
  /**
   * Decisions by tool, then by mode and exposed name: a decision depends on nothing else, and
   * every call and every tools/list asks again. Keyed by the Tool object, so a server's new
   * catalogue (new objects) is decided afresh and the old entries go with the old objects.
   */
  readonly #decisions = new WeakMap<Tool, Map<string, PolicyDecision>>();

  constructor(config: PolicyConfig) {
    this.table = new ModeTable(
      { ...BUILT_IN_MODES, ...config.modes },
      config.alwaysAllowed ?? ALWAYS_ALLOWED,
    );
    this.#overrides = Object.entries(config.toolPolicy).map(([pattern, facts]) => ({
      matches: globMatcher(pattern),
      facts,
    }));
  }

  factsOf({ exposed, tool }: NamedTool): ToolFacts {
    let facts = this.#facts.get(tool);
    if (!facts) {
      const overrides = this.#overrides
        .filter(({ matches }) => matches(exposed) || matches(tool.name))
        .map(({ facts: override }) => override);
      facts = overriddenFacts(declaredFacts(tool), overrides);
      this.#facts.set(tool, facts);
    }
    return facts;
  }

  decide(mode: string, named: NamedTool): PolicyDecision {
    let decisions = this.#decisions.get(named.tool);
    if (!decisions) {
      decisions = new Map();
      this.#decisions.set(named.tool, decisions);
    }
    const key = `${mode}\n${named.exposed}`;
    let decision = decisions.get(key);
    if (!decision) {
      const subject: PolicySubject = {
        exposed: named.exposed,
        name: named.tool.name,
        facts: this.factsOf(named),
      };
      decision = this.table.decide(mode, subject);
      decisions.set(key, decision);
    }
    return decision;
  }
}
