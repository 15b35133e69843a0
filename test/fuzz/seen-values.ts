/**
 * Values the server has answered with, by the field that held them, so later calls can name
 * things that exist (a ticket id, a feed id, a notes revision) and reach past "not found".
 */
export class SeenValues {
  private readonly byField = new Map<string, unknown[]>();

  learn(value: unknown, field = ''): void {
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 20)) this.learn(item, field);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) this.learn(inner, key);
    } else if ((typeof value === 'string' && value.length <= 200) || typeof value === 'number') {
      const known = this.byField.get(field) ?? [];
      if (!known.includes(value) && known.length < 50) this.byField.set(field, [...known, value]);
    }
  }

  /** What `field` could be, of `type`: seen under its own name, a near name, or as an `id`. */
  candidates(field: string, type: 'string' | 'number'): unknown[] {
    const names = [field, field.replace(/^base_/, ''), field.replace(/s$/, ''), 'id'];
    for (const name of names) {
      const known = (this.byField.get(name) ?? []).filter((value) => typeof value === type);
      if (known.length > 0) return known;
    }
    return [];
  }
}
