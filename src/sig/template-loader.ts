import { interpolate } from "./interpolate.js";
import { verifyFile } from "./verify-file.js";
import type { SigContext } from "./sig-context.js";

export class TemplateVerificationError extends Error {
  constructor(
    readonly template: string,
    readonly detail: string,
  ) {
    super(`Template ${template} failed verification: ${detail}`);
    this.name = "TemplateVerificationError";
  }
}

/**
 * Loads prompt templates from the templates directory through verification: what comes back is
 * the signed text, never a file edited since. Verified text is cached per name; the cache only
 * ever holds signed content, so a later edit on disk cannot reach the prompt through it.
 */
export class TemplateLoader {
  readonly #cache = new Map<string, string>();

  constructor(
    private readonly context: () => SigContext,
    private readonly templatesDir: string,
  ) {}

  loadTemplate(name: string): string {
    const cached = this.#cache.get(name);
    if (cached !== undefined) return cached;
    if (name === "" || name.includes("\0") || name.startsWith("/") || name.split(/[\\/]/).includes("..")) {
      throw new TemplateVerificationError(name, "a template name must stay inside the templates directory");
    }
    const result = verifyFile(this.context(), `${this.templatesDir}/${name}`);
    if (!result.verified || result.template === undefined) {
      throw new TemplateVerificationError(name, result.error ?? "not verified");
    }
    this.#cache.set(name, result.template);
    return result.template;
  }

  loadAndInterpolate(name: string, data: Readonly<Record<string, string | number | boolean>>): string {
    return interpolate(this.loadTemplate(name), data);
  }

  clearCache(): void {
    this.#cache.clear();
  }
}
