// The client's session types against the messages the server sends (the `Wire*` types,
// generated from tf_insight/session/wire.py). Checked when this file compiles: every field the
// client declares is a field of the message, and every message fits the client's type. A
// field renamed, removed or retyped on one side only fails `npm run test:unit`.
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type {
  SessionEndParams,
  SessionResult,
  SessionStep,
  SessionStepParams,
  Verdict,
  WireSessionEndParams,
  WireSessionStepParams,
  WireStepData,
  WireTraceResultData,
  WireUserFrame,
  WireVerdictData,
  WireVerdictFrame,
} from "../src/core/protocol";

/** The declared keys of `T`, without its index signature. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** `true` when the client's type `Client` reads only fields of `Sent`, and `Sent` fits it. */
type Reads<Client, Sent> = [Exclude<KnownKeys<Client>, keyof Sent>] extends [never] ? (Sent extends Client ? true : false) : false;

// A known divergence, kept apart rather than hidden: the client types a frame's `cell` as the
// explain panel's notebook label (`In[3]`, a string), while a traced notebook's session frames
// carry the cell's number (annotation.ts `placeOf` reads both).
type WithoutCell<F> = Omit<F, "cell">;
type StepSent = Omit<WireStepData, "user_frame"> & { user_frame: WithoutCell<WireUserFrame> | null };
type VerdictSent = Omit<WireVerdictData, "user_frame"> & { user_frame: WithoutCell<WireVerdictFrame> | null };
type ResultSent = Omit<WireTraceResultData, "steps" | "verdict"> & { steps: StepSent[]; verdict: VerdictSent | null };

const checks: {
  step: Reads<SessionStep, StepSent>;
  verdict: Reads<Verdict, VerdictSent>;
  result: Reads<SessionResult, ResultSent>;
  stepParams: Reads<SessionStepParams, Omit<WireSessionStepParams, "step"> & { step: StepSent }>;
  endParams: Reads<SessionEndParams, Omit<WireSessionEndParams, "result"> & { result: ResultSent }>;
  cellIsTheOnlyDivergence: Equal<Exclude<keyof WireUserFrame, keyof WithoutCell<WireUserFrame>>, "cell">;
} = { step: true, verdict: true, result: true, stepParams: true, endParams: true, cellIsTheOnlyDivergence: true };

/** A real session result as the core writes it (client/test/data/remat_trace.json). */
const real = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "client", "test", "data", "remat_trace.json"), "utf8")) as Record<string, unknown>;

describe("the session messages", () => {
  it("are read by the client only through fields the server sends", () => {
    assert.ok(Object.values(checks).every((ok) => ok));
  });

  it("have the fields a real session result has", () => {
    const keys: (keyof WireTraceResultData)[] = ["script", "status", "steps", "exception", "verdict", "retraces", "side_effects", "exit_code", "duration_s", "problems", "versions"];
    for (const key of keys) {
      assert.ok(key in real, key);
    }
  });
});
