// Preloaded by bunfig.toml for every test file.
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
