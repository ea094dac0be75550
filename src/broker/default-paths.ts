/** Where the daemon listens and writes its secret unless told otherwise (the reference's paths). */
export const DEFAULT_SOCKET_PATH = "/run/openclaw/secrets.sock";
export const DEFAULT_SECRET_FILE = "/run/openclaw/auth";
