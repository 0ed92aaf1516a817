package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// mkfile writes data (or runs write) at dir/rel, making its folders.
func mkfile(t *testing.T, dir, rel, data string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func prompts(t *testing.T, d *Dataset) []string {
	t.Helper()
	var out []string
	for _, r := range summary(requests(t, d.Source)) {
		out = append(out, r.prompt)
	}
	return out
}

func TestHFDirectories(t *testing.T) {
	// A hub snapshot: sharded Parquet under data/, split in the file name.
	snap := t.TempDir()
	mkfile(t, snap, "README.md", "---\nconfigs: []\n---\n")
	mkfile(t, snap, ".gitattributes", "*.parquet filter=lfs\n")
	writeParquet(t, filepath.Join(snap, "data", "train-00000-of-00002.parquet"), fixtureRows[:2])
	writeParquet(t, filepath.Join(snap, "data", "train-00001-of-00002.parquet"), fixtureRows[2:])
	writeParquet(t, filepath.Join(snap, "data", "test-00000-of-00001.parquet"), fixtureRows[1:2])

	// save_to_disk of a DatasetDict: a folder per split of Arrow streams.
	saved := t.TempDir()
	mkfile(t, saved, "dataset_dict.json", `{"splits": ["train", "test"]}`)
	for _, s := range []string{"train", "test"} {
		mkfile(t, saved, s+"/dataset_info.json", `{}`)
		mkfile(t, saved, s+"/state.json", `{"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}`)
		writeArrow(t, filepath.Join(saved, s, "data-00000-of-00001.arrow"), true)
	}

	// The datasets cache: dataset_info.json names the splits, files are
	// <builder>-<split>.arrow; cache-*.arrow are map() results.
	cache := t.TempDir()
	mkfile(t, cache, "dataset_info.json", `{"builder_name": "prompts", "splits": {"train_sft": {"name": "train_sft", "num_examples": 3}, "test_sft": {"name": "test_sft"}}}`)
	writeArrow(t, filepath.Join(cache, "prompts-train_sft.arrow"), true)
	mkfile(t, cache, "prompts-test_sft.arrow", "not read")
	mkfile(t, cache, "cache-0123abcd.arrow", "not read")
	mkfile(t, cache, "prompts.lock", "")

	// save_to_disk of one split: its name is in dataset_info.json only.
	single := t.TempDir()
	mkfile(t, single, "dataset_info.json", `{"splits": {"test": {"name": "test"}}}`)
	mkfile(t, single, "state.json", `{"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}`)
	writeArrow(t, filepath.Join(single, "data-00000-of-00001.arrow"), true)

	// A folder of JSON Lines per config, without split words: all train.
	configs := t.TempDir()
	mkfile(t, configs, "easy/part1.jsonl", `{"prompt":"e1"}`)
	mkfile(t, configs, "hard/part1.jsonl", `{"prompt":"h1"}`+"\n"+`{"prompt":"h2"}`)

	all := []string{"What is Go?", "Name a prime.", "Sum 2 and 3."}
	for _, c := range []struct {
		value, split string
		want         []string
	}{
		{snap, "train", all},
		{"kind=huggingface,source=" + snap + ",split=test", "test", all[1:2]},
		{`kind=hf,source=` + snap + `,load_kwargs={"split":"test"}`, "test", all[1:2]},
		{saved, "train", all},
		{"kind=huggingface,source=" + saved + ",split=test", "test", all},
		{"kind=huggingface,source=" + cache + ",split=train_sft", "train_sft", all},
		{"kind=huggingface,source=" + configs + ",name=hard", "train", []string{"h1", "h2"}},
		{single, "test", all},
	} {
		d, err := Open(c.value, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		if got := prompts(t, d); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("%s: prompts %q, want %q", c.value, got, c.want)
		}
		if d.Description.Kind != kindHF || d.Description.Split != c.split || len(d.Description.SHA256) != 64 {
			t.Fatalf("%s: description %+v", c.value, d.Description)
		}
	}

	// The sha256 covers every file of the split: changing a shard changes it.
	d1, _ := Open(snap, Options{})
	writeParquet(t, filepath.Join(snap, "data", "train-00001-of-00002.parquet"), fixtureRows[:1])
	d2, err := Open(snap, Options{})
	if err != nil || d1.Description.SHA256 == d2.Description.SHA256 {
		t.Fatalf("sha256 unchanged after a shard changed: %v", err)
	}
}

func TestHFErrors(t *testing.T) {
	multi := t.TempDir()
	mkfile(t, multi, "validation.jsonl", `{"prompt":"v"}`)
	mkfile(t, multi, "test.jsonl", `{"prompt":"t"}`)
	mixed := t.TempDir()
	mkfile(t, mixed, "train-1.jsonl", `{"prompt":"v"}`)
	mkfile(t, mixed, "train-2.csv", "prompt\nx\n")
	csvs := t.TempDir()
	mkfile(t, csvs, "train-1.csv", "prompt\nx\n")
	mkfile(t, csvs, "train-2.csv", "question\ny\n")
	twoCaches := t.TempDir()
	mkfile(t, twoCaches, "default/0.0.0/aaa/dataset_info.json", "{}")
	mkfile(t, twoCaches, "default/0.0.0/aaa/x-train.arrow", "")
	mkfile(t, twoCaches, "default/0.0.0/bbb/dataset_info.json", "{}")
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	t.Setenv("HF_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for _, c := range []struct {
		value, want string
	}{
		{"allenai/c4", "allenai/c4: no such local path; goodput reads only local copies of Hugging Face datasets, it never downloads: fetch one with 'huggingface-cli download --repo-type dataset allenai/c4 --local-dir DIR'"},
		{"kind=huggingface,source=allenai/c4,split=train", "goodput reads only local copies"},
		{multi, "several splits (test, validation): choose one with kind=huggingface,source="},
		{"kind=huggingface,source=" + multi + ",split=train", `no split "train" (splits: test, validation)`},
		{"kind=huggingface,source=" + multi + ",name=x", `no config "x"`},
		{mixed, `split "train" mixes`},
		{csvs, `train-2.csv: columns "question" differ from the first file's ("prompt")`},
		{twoCaches, "holds several cached datasets"},
		{"kind=huggingface", "kind=huggingface needs source=DIR"},
		{"kind=huggingface,source=x,revision=main", `kind=huggingface: unknown key "revision"`},
		{"kind=huggingface,source=" + multi + `,load_kwargs={"streaming":true}`, "load_kwargs"},
		{"kind=huggingface,source=testdata/prompts.csv,split=train", "is a file: split and name apply to a dataset directory"},
	} {
		_, err := Open(c.value, Options{})
		oneLine(t, err)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.value, err, c.want)
		}
	}
}

func TestHFHubCache(t *testing.T) {
	hub := t.TempDir()
	t.Setenv("HF_HUB_CACHE", hub)
	repo := filepath.Join(hub, "datasets--someone--prompts")
	mkfile(t, repo, "refs/main", "abc123\n")
	mkfile(t, repo, "snapshots/abc123/train.jsonl", `{"prompt":"cached"}`)
	mkfile(t, repo, "snapshots/old999/train.jsonl", `{"prompt":"old"}`)
	d, err := Open("someone/prompts", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := prompts(t, d); !reflect.DeepEqual(got, []string{"cached"}) {
		t.Fatalf("prompts %q", got)
	}
}

func TestPublishedTraces(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		value    string
		in, out  []int
		schedule []time.Duration
		skipped  int
		columns  [3]string
	}{
		// BurstGPT: seconds; the failed request (0 response tokens) is left out.
		{"testdata/burstgpt.csv", []int{472, 30, 417}, []int{18, 12, 217}, []time.Duration{0, 2500 * ms, 113 * time.Second}, 1,
			[3]string{"Timestamp", "Request tokens", "Response tokens"}},
		{"testdata/azure2023.csv", []int{374, 396, 879}, []int{44, 109, 31}, []time.Duration{0, 4314579 * time.Microsecond, 4569410 * time.Microsecond}, 0,
			[3]string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}},
		{"testdata/azure2024.csv", []int{2162, 4010, 88}, []int{5, 32, 1}, []time.Duration{0, 4964 * time.Microsecond, 990070 * time.Microsecond}, 0,
			[3]string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}},
		{"kind=weka,path=testdata/weka.jsonl", []int{120, 64}, []int{30, 8}, []time.Duration{0, 250 * ms}, 0, [3]string{"t", "in", "out"}},
		{"testdata/weka.jsonl", []int{120, 64}, []int{30, 8}, []time.Duration{0, 250 * ms}, 0, [3]string{"t", "in", "out"}},
	} {
		d, err := Open(c.value, Options{Trace: true})
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		var in, out []int
		for _, r := range requests(t, d.Source) {
			in, out = append(in, r.TargetPromptTokens), append(out, r.MaxTokens)
		}
		if !reflect.DeepEqual(in, c.in) || !reflect.DeepEqual(out, c.out) {
			t.Errorf("%s: input %v output %v, want %v %v", c.value, in, out, c.in, c.out)
		}
		for i, s := range d.Schedule {
			if diff := s - c.schedule[i]; diff < -time.Microsecond || diff > time.Microsecond {
				t.Errorf("%s: schedule %v, want %v", c.value, d.Schedule, c.schedule)
				break
			}
		}
		cols := d.Description.Columns
		if got := [3]string{cols[roleTimestamp], cols[rolePromptCount], cols[roleOutputCount]}; got != c.columns || d.Description.Skipped != c.skipped {
			t.Errorf("%s: columns %v skipped %d, want %v %d", c.value, got, d.Description.Skipped, c.columns, c.skipped)
		}
	}
	// Given columns win over the layouts; a BurstGPT file read as prompts
	// says it has no prompt column.
	if _, err := Open("kind=trace_synthetic,path=testdata/burstgpt.csv,timestamp_column=Total tokens,prompt_tokens_column=Request tokens,output_tokens_column=Total tokens", Options{Trace: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open("testdata/azure2023.csv", Options{}); err == nil || !strings.Contains(err.Error(), "no prompt column") {
		t.Fatalf("azure as prompts: %v", err)
	}
	dir := t.TempDir()
	bad := mkfile(t, dir, "bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,374,44\nyesterday,1,1\n")
	if _, err := Open(bad, Options{Trace: true}); err == nil || !strings.Contains(err.Error(), `bad.csv:3: "TIMESTAMP" must be a number or a date-time`) {
		t.Fatalf("bad azure row: %v", err)
	}
	zero := mkfile(t, dir, "zero.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,GPT-4,5,0,5,API log\n")
	if _, err := Open(zero, Options{Trace: true}); err == nil || !strings.Contains(err.Error(), "zero.csv: no usable rows (1 with 0 tokens)") {
		t.Fatalf("all-zero burstgpt: %v", err)
	}
}
