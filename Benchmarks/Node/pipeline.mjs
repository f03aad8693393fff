// The Node.js side of `make bench-pipeline` (Benchmarks/bench-pipeline.py): URLs on stdin, one JSON line out per
// line, with the fields `linkparse --fields line,ok,href,scheme,username,password,host,port,path,query,fragment,params`
// writes, from WHATWG `new URL` (Ada inside Node) and its `searchParams`. The same job a user would write in
// JavaScript; the figures compare lines per second through a pipe.
//
//   node Benchmarks/Node/pipeline.mjs < urls.txt > records.jsonl

import { createInterface } from "node:readline";

const out = [];
let pending = 0;
let number = 0;
const flush = () => {
  if (out.length === 0) return;
  process.stdout.write(out.join(""));
  out.length = 0;
  pending = 0;
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  number += 1;
  let record;
  try {
    const url = new URL(line);
    const at = url.href.indexOf("?");
    const hash = url.href.indexOf("#");
    record = {
      line: number,
      ok: true,
      href: url.href,
      scheme: url.protocol.slice(0, -1),
      username: url.username,
      password: url.password,
      host: url.href.startsWith("//", url.protocol.length) ? url.hostname : null,
      port: url.port === "" ? null : Number(url.port),
      path: url.pathname,
      // null when the URL has no `?` (or no `#`), as linkparse writes; Node's search and hash are "" for both.
      query: at < 0 || (hash >= 0 && at > hash) ? null : url.search.slice(1),
      fragment: hash < 0 ? null : url.hash.slice(1),
      params: [...url.searchParams],
    };
  } catch (error) {
    record = { line: number, ok: false, error: { code: "invalid-url", message: String(error.message) } };
  }
  out.push(JSON.stringify(record) + "\n");
  pending += 1;
  if (pending >= 512) flush();
});
lines.on("close", flush);
