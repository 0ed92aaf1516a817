// Generates the golden token ids of tokenize/testdata/corpus.jsonl with the
// Hugging Face tokenizers library (Rust, 0.22.2) through its N-API build,
// @anush008/tokenizers@0.6.0. See README.md in this directory.
//
// usage: node gen.js CORPUS OUTDIR MODEL=TOKENIZER_JSON[:LIMIT] ...
//
// For each MODEL it writes OUTDIR/MODEL.jsonl.gz with one JSON object per corpus
// line, in corpus order:
//   ids      ids of encode(text, addSpecialTokens=false)
//   decoded  decode(ids, skipSpecialTokens=false), only when it differs from text
//   special  ids of encode(text, addSpecialTokens=true), only for the first 200
//            lines and only when they differ from ids
// LIMIT, when given, stops after that many corpus lines.
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");
const { Tokenizer } = require("@anush008/tokenizers");

async function main() {
  const [corpusPath, outDir, ...specs] = process.argv.slice(2);
  if (!corpusPath || !outDir || specs.length === 0) {
    console.error("usage: node gen.js CORPUS OUTDIR MODEL=TOKENIZER_JSON[:LIMIT] ...");
    process.exit(2);
  }
  const texts = fs.readFileSync(corpusPath, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l).text);
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    const model = spec.slice(0, eq);
    let file = spec.slice(eq + 1);
    let limit = texts.length;
    const m = /^(.*):(\d+)$/.exec(file);
    if (m) {
      file = m[1];
      limit = Math.min(limit, Number(m[2]));
    }
    const tok = Tokenizer.fromFile(file);
    const lines = [];
    for (let i = 0; i < limit; i++) {
      const text = texts[i];
      const ids = (await tok.encode(text, null, { addSpecialTokens: false })).getIds();
      const rec = { ids: Array.from(ids) };
      const decoded = await tok.decode(rec.ids, false);
      if (decoded !== text) rec.decoded = decoded;
      if (i < 200) {
        const sp = Array.from((await tok.encode(text, null, { addSpecialTokens: true })).getIds());
        if (sp.length !== rec.ids.length || sp.some((v, k) => v !== rec.ids[k])) rec.special = sp;
      }
      lines.push(JSON.stringify(rec));
    }
    const out = path.join(outDir, model + ".jsonl.gz");
    fs.writeFileSync(out, zlib.gzipSync(lines.join("\n") + "\n", { level: 9 }));
    console.log(`${model}: ${lines.length} lines -> ${out}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
