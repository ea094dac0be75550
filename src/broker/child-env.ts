/**
 * The environment a tool runs with: PATH, HOME, USER and TERM from the daemon, then the credentials,
 * then `forced_env`, then whatever the request asked for minus every name that can hijack the tool
 * or something it starts, and minus any name the daemon already set (a request cannot replace a
 * credential, a forced value or the base variables). A tool with `allowed_env` takes only the request
 * names listed there (allow-list mode); the denylist applies in both modes and cannot be listed.
 */
// CLOUDSDK_: gcloud reads every property as CLOUDSDK_<SECTION>_<NAME> (API endpoints, proxy, CA
// file, TLS validation off); DOCKER_: the daemon, context and TLS files docker talks through;
// AWS_ENDPOINT_URL: also per service (AWS_ENDPOINT_URL_S3, ...).
const DENIED_PREFIXES = [
  "LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_TRACE",
  "CLOUDSDK_", "DOCKER_", "AWS_ENDPOINT_URL",
] as const;

export const DENIED_ENV_NAMES: ReadonlySet<string> = new Set([
  // shells and the programs tools hand text to
  "BASH_ENV", "ENV", "IFS", "CDPATH", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE",
  "BASH_XTRACEFD", "ZDOTDIR", "SHELL", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "TMPDIR",
  // the same hand-offs under the names common credentialed tools read first (gh, kubectl)
  "GH_BROWSER", "GH_EDITOR", "GH_PAGER", "KUBE_EDITOR", "KUBECTL_EXTERNAL_DIFF",
  // language runtimes
  "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONBREAKPOINT", "PYTHONINSPECT",
  "PERL5LIB", "PERLLIB", "PERL5OPT", "PERL5DB", "RUBYLIB", "RUBYOPT", "GEM_PATH", "GEM_HOME",
  "NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
  // GODEBUG: http2debug=2 makes any Go program print every HTTP/2 header it sends, Authorization
  // included, and other settings turn TLS checks back to insecure defaults
  "JDK_JAVA_OPTIONS", "CLASSPATH", "GOFLAGS", "GODEBUG", "LUA_PATH", "LUA_CPATH", "LUA_INIT", "TCLLIBPATH",
  "PHPRC", "PHP_INI_SCAN_DIR", "GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF",
  "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES", "MALLOC_CHECK_", "GETCONF_DIR",
  // proxies and TLS trust
  "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
  "NO_PROXY", "ftp_proxy", "FTP_PROXY", "SOCKS_PROXY", "SOCKS5_SERVER", "SSL_CERT_FILE", "SSL_CERT_DIR",
  "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED",
  "AWS_CA_BUNDLE", "SSLKEYLOGFILE", "GIT_SSL_NO_VERIFY", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH",
  "GIT_SSL_CERT", "GIT_SSL_KEY", "GIT_HTTP_PROXY_AUTHMETHOD",
  // git and ssh
  "GIT_PROXY_COMMAND", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS", "SSH_ASKPASS",
  "SSH_AUTH_SOCK", "GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXTERNAL_DIFF", "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_TEMPLATE_DIR", "GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER",
  "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_REDIRECT_STDERR", "GIT_SHALLOW_FILE", "GIT_CURL_VERBOSE",
  // where a tool finds its configuration, and so which host, token file or helper it uses
  "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS", "GH_HOST", "GH_CONFIG_DIR",
  "GH_ENTERPRISE_TOKEN", "GLAB_CONFIG_DIR", "CURL_HOME", "NETRC", "WGETRC",
  "DOCKER_CONFIG", "DOCKER_HOST", "KUBECONFIG", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "CLOUDSDK_CONFIG", "GNUPGHOME", "PASSWORD_STORE_DIR",
  "PIP_CONFIG_FILE", "PIP_INDEX_URL", "CARGO_HOME",
  // the C library's own tunables (GLIBC_TUNABLES has carried loader exploits) and locale loading
  "GLIBC_TUNABLES", "LOCALDOMAIN", "RES_OPTIONS",
]);

export function isDeniedEnvName(name: string): boolean {
  // Read in any case: npm takes every npm_config_* name as a setting (Npm_Config_userconfig too),
  // and Python's urllib (so requests, pip, the AWS CLI) any name ending in _proxy.
  const lower = name.toLowerCase();
  if (lower.startsWith("npm_config_") || lower.endsWith("_proxy")) return true;
  return DENIED_ENV_NAMES.has(name) || DENIED_PREFIXES.some((p) => name.startsWith(p));
}

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ChildEnvInput {
  readonly base: { readonly PATH: string; readonly HOME: string; readonly USER: string; readonly TERM: string };
  readonly credentials: ReadonlyMap<string, string>;
  readonly forced: Readonly<Record<string, string>>;
  readonly requested: Readonly<Record<string, string>> | null;
  /** Allow-list mode: only these request names pass (still minus the denylist). */
  readonly allowed?: ReadonlySet<string>;
  readonly configHome?: string;
}

export interface ChildEnv {
  readonly env: Record<string, string>;
  /** Requested names that were dropped, for the log (names only: values may be secrets). */
  readonly dropped: readonly string[];
}

export function buildChildEnv(input: ChildEnvInput): ChildEnv {
  const env = new Map<string, string>(Object.entries(input.base));
  for (const [k, v] of input.credentials) env.set(k, v);
  for (const [k, v] of Object.entries(input.forced)) env.set(k, v);
  const owned = new Set(env.keys());
  const dropped: string[] = [];
  if (input.requested !== null) {
    for (const k of Object.keys(input.requested)) {
      const v = input.requested[k] as string;
      const listed = input.allowed === undefined || input.allowed.has(k);
      if (!listed || !VALID_NAME.test(k) || isDeniedEnvName(k) || owned.has(k) || v.includes("\0")) dropped.push(k);
      else env.set(k, v);
    }
  }
  if (input.configHome !== undefined) env.set("XDG_CONFIG_HOME", input.configHome);
  return { env: Object.fromEntries(env), dropped };
}
