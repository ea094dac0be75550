import { existsSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { MAX_YAML_NESTING, yamlNestingExceeds } from "../core/yaml-text-bounds.js";
import { z } from "zod";
import { type ArgRule, type MatchMode, PatternError, compileGoPattern } from "./arg-rules.js";
import { parseByteSize } from "./byte-size.js";
import { parseGoDuration } from "./go-duration.js";
import { isDeniedEnvName } from "./child-env.js";
import { templatePlaceholders } from "./config-template.js";
import { DEFAULT_SECRET_FILE, DEFAULT_SOCKET_PATH } from "./default-paths.js";

/**
 * wrappers.yaml in the reference's shape (proxy, security, credentials, tools), validated strictly: an
 * unknown key is an error rather than silently ignored, because an ignored security setting (say a
 * `redact_output` the operator relies on) would fail open.
 */
export interface ConfigFileSpec {
  readonly xdgSubdir: string;
  readonly filename: string;
  readonly template: string;
  readonly credentials: readonly string[];
}

export interface ToolConfig {
  readonly name: string;
  readonly binary: string;
  readonly timeoutMs: number;
  readonly env: Readonly<Record<string, string>>;
  readonly forcedEnv: Readonly<Record<string, string>>;
  readonly mode: "blocklist" | "allowlist";
  readonly blockedArgs: readonly ArgRule[];
  readonly allowedArgs: readonly ArgRule[];
  /** Allow-list mode for request env: only these names pass (undefined: any name not denied). */
  readonly allowedEnv?: ReadonlySet<string>;
  readonly configFile?: ConfigFileSpec;
  /**
   * Where the tool runs, whatever the request's `cwd` says. The request's directory is the sandbox's
   * to write, and git, gh, npm, cargo and terraform take configuration, and with it commands, from
   * the directory they run in.
   */
  readonly workingDir?: string;
}

export interface ProxySettings {
  readonly timeoutMs: number;
  readonly secretFile: string;
  readonly socketPath: string;
  readonly maxConnections: number;
  readonly readHeaderTimeoutMs: number;
  readonly readMessageTimeoutMs: number;
  readonly maxStdinMessageSize: number;
  readonly maxRequestSize: number;
  readonly replayCacheTtlMs: number;
  readonly replayCacheMaxEntries: number;
  readonly writeTimeoutMs: number;
  /** 0: unlimited. */
  readonly maxOutputSize: number;
  /** 0: unlimited. */
  readonly maxConnectionLifetimeMs: number;
  readonly passBinary: string;
  readonly envFile?: string;
  readonly allowedUid: number;
  readonly allowedCallers: readonly string[];
  readonly tempDir: string;
}

export interface BrokerConfig {
  readonly proxy: ProxySettings;
  readonly denyUnverifiedCallerExe: boolean;
  readonly credentials: ReadonlyMap<string, string>;
  readonly tools: ReadonlyMap<string, ToolConfig>;
}

export class ConfigError extends Error {}

const TRUSTED_PASS_LOCATIONS = ["/usr/bin/pass", "/usr/local/bin/pass", "/opt/homebrew/bin/pass", "/home/linuxbrew/.linuxbrew/bin/pass"];

// Interpreters run whatever script they are given, so naming one as an allowed caller would admit
// every script on the machine: the allow-list refuses them.
const INTERPRETER = /^(node|nodejs|deno|bun|python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|luajit|tclsh[0-9.]*|wish[0-9.]*|java|bash|sh|dash|zsh|ksh|mksh|fish|tcsh|csh|busybox|env|gdb|expect)$/;

const duration = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const ms = typeof v === "number" ? (v === 0 ? 0 : undefined) : parseGoDuration(v);
  if (ms === undefined) {
    ctx.addIssue({ code: "custom", message: `not a duration: ${JSON.stringify(v)} (use Go syntax such as 30s, 5m, 1h)` });
    return z.NEVER;
  }
  return ms;
});

const size = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const bytes = parseByteSize(v);
  if (bytes === undefined) {
    ctx.addIssue({ code: "custom", message: `not a size: ${JSON.stringify(v)} (use 512KB, 1MB, 2GB or a number of bytes)` });
    return z.NEVER;
  }
  return bytes;
});

const absolutePath = z.string().refine((p) => isAbsolute(p), { message: "must be an absolute path" });
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");

const ruleSchema = z.strictObject({
  pattern: z.string().optional(),
  match: z.enum(["arg", "command", "argv"]).optional(),
  argv: z.array(z.string()).optional(),
  message: z.string().optional(),
});

const toolSchema = z.strictObject({
  binary: absolutePath,
  timeout: duration.optional(),
  env: z.record(envName, z.string()).optional(),
  forced_env: z.record(envName, z.string()).optional(),
  mode: z.enum(["blocklist", "allowlist"]).optional(),
  blocked_args: z.array(ruleSchema).optional(),
  allowed_args: z.array(ruleSchema).optional(),
  allowed_env: z.array(envName).optional(),
  working_dir: absolutePath.optional(),
  config_file: z
    .strictObject({
      xdg_subdir: z.string(),
      filename: z.string(),
      template: z.string(),
      credentials: z.array(z.string()),
    })
    .optional(),
});

const proxySchema = z.strictObject({
  timeout: duration.optional(),
  hmac_secret_file: absolutePath.optional(),
  socket: absolutePath.optional(),
  max_connections: z.number().int().positive().optional(),
  read_header_timeout: duration.optional(),
  read_message_timeout: duration.optional(),
  max_stdin_message_size: size.optional(),
  initial_read_buffer: size.optional(),
  replay_cache_ttl: duration.optional(),
  replay_cache_max_entries: z.number().int().positive().optional(),
  write_timeout: duration.optional(),
  max_output_size: size.optional(),
  max_connection_lifetime: duration.optional(),
  pass_binary: absolutePath.optional(),
  env_file: absolutePath.optional(),
  allowed_uid: z.number().int().nonnegative().optional(),
  allowed_callers: z.array(absolutePath).optional(),
  temp_dir: absolutePath.optional(),
  // Accepted for compatibility with reference configs: output is always streamed, never spooled.
  inline_threshold: size.optional(),
});

const fileSchema = z.strictObject({
  proxy: proxySchema.optional(),
  security: z.strictObject({ deny_unverified_caller_exe: z.boolean().optional() }).optional(),
  credentials: z.record(z.string(), z.strictObject({ source: z.string() })).optional(),
  tools: z.record(z.string(), toolSchema).optional(),
});

type RuleInput = z.infer<typeof ruleSchema>;

function compileRule(rule: RuleInput, where: string, allowArgv: boolean): ArgRule {
  const match: MatchMode = rule.match ?? "arg";
  const message = rule.message ?? "argument not allowed";
  try {
    if (match === "argv") {
      if (!allowArgv) throw new ConfigError(`${where}: match "argv" is only supported in allowed_args`);
      if (rule.pattern !== undefined) throw new ConfigError(`${where}: use either pattern or argv, not both`);
      if (rule.argv === undefined || rule.argv.length === 0) throw new ConfigError(`${where}: match "argv" needs a non-empty argv list`);
      return { match, message, argv: rule.argv.map((p) => compileGoPattern(p, true)) };
    }
    if (rule.argv !== undefined) throw new ConfigError(`${where}: argv is only valid with match: argv`);
    if (rule.pattern === undefined) throw new ConfigError(`${where}: pattern is required`);
    return { match, message, pattern: compileGoPattern(rule.pattern) };
  } catch (error) {
    if (error instanceof PatternError) throw new ConfigError(`${where}: ${error.message}`);
    throw error;
  }
}

const SUPPORTED_SOURCES = /^(pass:|env:|file:)/;

function validateRelative(p: string, where: string, allowSlash: boolean): void {
  if (p === "" || isAbsolute(p) || p.split("/").some((seg) => seg === ".." || seg === ".") || (!allowSlash && p.includes("/")) || p.includes("\0")) {
    throw new ConfigError(`${where}: ${JSON.stringify(p)} must be a plain relative name without "..", "." or absolute parts`);
  }
}

function resolvePassBinary(configured: string | undefined): string {
  if (configured !== undefined) return configured;
  return TRUSTED_PASS_LOCATIONS.find((p) => existsSync(p)) ?? "/usr/bin/pass";
}

function resolveCaller(path: string, where: string): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new ConfigError(`${where}: ${path} does not exist`);
  }
  if (INTERPRETER.test(basename(real)) || real === realpathSync(process.execPath)) {
    throw new ConfigError(
      `${where}: ${path} is an interpreter (${real}); allowing it would admit any script it runs. List the provenant-wrap single executable instead`,
    );
  }
  return real;
}

export interface ConfigOverrides {
  readonly socketPath?: string;
  readonly secretFile?: string;
}

export function parseBrokerConfig(text: string, overrides: ConfigOverrides = {}): BrokerConfig {
  if (yamlNestingExceeds(text)) throw new ConfigError(`config is nested deeper than ${MAX_YAML_NESTING} levels`);
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`config is not valid YAML: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join(".") ?? "";
    throw new ConfigError(`config ${path === "" ? "" : `${path}: `}${issue?.message ?? "invalid"}`);
  }
  const file = parsed.data;
  const p = file.proxy ?? {};

  const credentials = new Map<string, string>();
  for (const [name, def] of Object.entries(file.credentials ?? {})) {
    if (!SUPPORTED_SOURCES.test(def.source)) {
      throw new ConfigError(`credentials.${name}.source: ${JSON.stringify(def.source.split(":")[0])} is not a supported source (pass:, env:, file:)`);
    }
    credentials.set(name, def.source);
  }
  const needCredential = (name: string, where: string): void => {
    if (!credentials.has(name)) throw new ConfigError(`${where}: unknown credential ${JSON.stringify(name)}`);
  };

  const timeoutMs = p.timeout ?? 300_000;
  const tools = new Map<string, ToolConfig>();
  for (const [name, t] of Object.entries(file.tools ?? {})) {
    const where = `tools.${name}`;
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name === "." || name === "..") throw new ConfigError(`${where}: tool names must match [A-Za-z0-9._-]+`);
    for (const [envVar, cred] of Object.entries(t.env ?? {})) needCredential(cred, `${where}.env.${envVar}`);
    const mode = t.mode ?? "blocklist";
    if (t.allowed_args !== undefined && mode !== "allowlist") throw new ConfigError(`${where}.allowed_args: requires mode: allowlist`);
    if (mode === "allowlist" && (t.allowed_args ?? []).length === 0) throw new ConfigError(`${where}: mode allowlist needs at least one allowed_args rule`);
    let configFile: ConfigFileSpec | undefined;
    if (t.config_file !== undefined) {
      const c = t.config_file;
      validateRelative(c.xdg_subdir, `${where}.config_file.xdg_subdir`, true);
      validateRelative(c.filename, `${where}.config_file.filename`, false);
      for (const cred of c.credentials) needCredential(cred, `${where}.config_file.credentials`);
      for (const ph of templatePlaceholders(c.template)) {
        if (!c.credentials.some((cred) => cred.replace(/_/g, "-") === ph.replace(/_/g, "-"))) {
          throw new ConfigError(`${where}.config_file.template: placeholder {{ .${ph} }} is not in config_file.credentials`);
        }
      }
      configFile = { xdgSubdir: c.xdg_subdir, filename: c.filename, template: c.template, credentials: c.credentials };
    }
    for (const [i, envVar] of (t.allowed_env ?? []).entries()) {
      if (isDeniedEnvName(envVar)) throw new ConfigError(`${where}.allowed_env[${i}]: ${envVar} is on the denylist and can never come from a request (use forced_env to set it)`);
    }
    tools.set(name, {
      name,
      binary: t.binary,
      timeoutMs: t.timeout ?? timeoutMs,
      env: { ...t.env },
      forcedEnv: { ...t.forced_env },
      mode,
      blockedArgs: (t.blocked_args ?? []).map((r, i) => compileRule(r, `${where}.blocked_args[${i}]`, false)),
      allowedArgs: (t.allowed_args ?? []).map((r, i) => compileRule(r, `${where}.allowed_args[${i}]`, true)),
      ...(t.allowed_env === undefined ? {} : { allowedEnv: new Set(t.allowed_env) }),
      ...(configFile === undefined ? {} : { configFile }),
      ...(t.working_dir === undefined ? {} : { workingDir: t.working_dir }),
    });
  }

  const uid = process.getuid?.() ?? 0;
  const proxy: ProxySettings = {
    timeoutMs,
    secretFile: overrides.secretFile ?? p.hmac_secret_file ?? DEFAULT_SECRET_FILE,
    socketPath: overrides.socketPath ?? p.socket ?? DEFAULT_SOCKET_PATH,
    maxConnections: p.max_connections ?? 64,
    readHeaderTimeoutMs: p.read_header_timeout ?? 3_000,
    readMessageTimeoutMs: p.read_message_timeout ?? 15_000,
    maxStdinMessageSize: p.max_stdin_message_size ?? 1024 * 1024,
    maxRequestSize: p.initial_read_buffer ?? 2 * 1024 * 1024,
    replayCacheTtlMs: p.replay_cache_ttl ?? 120_000,
    replayCacheMaxEntries: p.replay_cache_max_entries ?? 10_000,
    writeTimeoutMs: p.write_timeout ?? 30_000,
    maxOutputSize: p.max_output_size ?? 0,
    maxConnectionLifetimeMs: p.max_connection_lifetime ?? 0,
    passBinary: resolvePassBinary(p.pass_binary),
    ...(p.env_file === undefined ? {} : { envFile: p.env_file }),
    allowedUid: p.allowed_uid ?? uid,
    allowedCallers: (p.allowed_callers ?? []).map((c, i) => resolveCaller(c, `proxy.allowed_callers[${i}]`)),
    tempDir: p.temp_dir ?? join(tmpdir(), `provenant-broker-${uid}`),
  };
  return { proxy, denyUnverifiedCallerExe: file.security?.deny_unverified_caller_exe ?? false, credentials, tools };
}

export function loadBrokerConfig(path: string, overrides: ConfigOverrides = {}): BrokerConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read config ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseBrokerConfig(text, overrides);
}
