// The settings object sent to the server as `initializationOptions` and in
// `workspace/didChangeConfiguration` (contract: {"tfInsight": {...}}). Values from VS Code are
// validated here so the server always receives the documented types.

export type KerasVersion = "auto" | "3" | "2";
export type TraceLevel = "off" | "messages" | "verbose";

export interface ServerSettings {
  tfInsight: {
    interpreter: string | null;
    select: string[];
    ignore: string[];
    keras: KerasVersion;
    /** `stopAfter`: `tf-insight trace --stop-after`'s WHEN, "" to run to the end. */
    session: { maxHits: number; timeoutSeconds: number; stopAfter: string };
    trace: { server: TraceLevel };
    /** VS Code's workspace trust: only then does the server run what the workspace names. */
    trustedWorkspace: boolean;
  };
}

export const DEFAULTS = {
  select: [] as string[],
  ignore: [] as string[],
  keras: "auto" as KerasVersion,
  maxHits: 3, // steps kept per probe per user call site (the session engine's default)
  timeoutSeconds: 300,
  stopAfter: "",
  trace: "off" as TraceLevel,
};

/** Reads one `tfInsight.*` value (key without the prefix, e.g. `session.maxHits`). */
export type SettingReader = (key: string) => unknown;

function stringList(value: unknown): string[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return value.filter((v): v is string => typeof v === "string" && v.trim() !== "").map((v) => v.trim());
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function text(value: unknown, fallback: string): string {
  return typeof value === "string" ? value.trim() : fallback;
}

function positive(value: unknown, fallback: number, integer: boolean): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    return fallback;
  }
  return integer ? Math.floor(value) : value;
}

/**
 * Build the server settings. `interpreter` is the resolved interpreter the client started the
 * server with (so the server runs sessions with the same one), or the raw setting.
 */
export function buildServerSettings(read: SettingReader, interpreter: string | null, trustedWorkspace: boolean): ServerSettings {
  return {
    tfInsight: {
      interpreter,
      select: stringList(read("select")),
      ignore: stringList(read("ignore")),
      keras: oneOf(read("keras"), ["auto", "3", "2"] as const, DEFAULTS.keras),
      session: {
        maxHits: Math.max(1, positive(read("session.maxHits"), DEFAULTS.maxHits, true)),
        timeoutSeconds: positive(read("session.timeoutSeconds"), DEFAULTS.timeoutSeconds, false),
        stopAfter: text(read("session.stopAfter"), DEFAULTS.stopAfter), // the server checks its form
      },
      trace: { server: oneOf(read("trace.server"), ["off", "messages", "verbose"] as const, DEFAULTS.trace) },
      trustedWorkspace,
    },
  };
}

/** Settings whose change needs a new server process (not just didChangeConfiguration). */
export const RESTART_SETTINGS = ["tfInsight.interpreter"] as const;
