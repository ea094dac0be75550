import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.js";

// A setup file runs before each test file, so each file's own directories go when it ends.
afterAll(removeTempDirs);
