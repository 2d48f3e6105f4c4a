// Preloaded by bunfig.toml for every test file.
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);

// The command line speaks the system's language (LANG, issue 15). Tests assert its English texts
// unless they set LANG themselves, whatever the locale of the machine running them; processes
// the tests start inherit this.
process.env.LANG = "C.UTF-8";
delete process.env.LC_ALL;
delete process.env.LC_MESSAGES;
