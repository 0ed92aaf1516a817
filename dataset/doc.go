// Package dataset turns a --data value into the requests a benchmark sends:
// synthetic prompts described by GuideLLM's keys (prompt_tokens=256,
// output_tokens=128, …), seeded and reproducible.
package dataset
