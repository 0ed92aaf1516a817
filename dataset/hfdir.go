package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A local Hugging Face dataset is a directory of data files, in one of the
// layouts the hub and the datasets library write:
//
//   - a repository snapshot (huggingface-cli download): data files whose
//     path names the split, e.g. data/train-00000-of-00001.parquet,
//     test.jsonl, or a folder per config holding those;
//   - save_to_disk: state.json, dataset_info.json and data-*.arrow, or
//     dataset_dict.json and a folder per split;
//   - the datasets cache: dataset_info.json and
//     <builder>-<split>[-NNNNN-of-NNNNN].arrow (cache-*.arrow files are
//     map() results and are left out).
//
// Nothing is downloaded: a hub id is looked up in the local hub cache only.

// hfArgs select within a dataset directory.
type hfArgs struct {
	split string // "" picks train, or the only split
	name  string // the config: a subfolder
}

// splitWords maps the words that name a split in file and folder names to
// the split, as the hub's default data-file patterns do.
var splitWords = map[string]string{
	"train": "train", "training": "train",
	"validation": "validation", "valid": "validation", "val": "validation", "dev": "validation",
	"test": "test", "testing": "test", "eval": "test", "evaluation": "test",
}

// pathWords splits a relative path into words at the hub's separators
// (- . space digits /); _ stays inside a word (train_sft).
var pathWords = regexp.MustCompile(`[^-. 0-9/\\]+`)

// hfFile is a data file of a dataset directory.
type hfFile struct {
	path, rel, format string
}

// openDir opens a local dataset directory: the files of one split, read as
// one table.
func openDir(dir string, hf hfArgs, ta *traceArgs, mapper ColumnMapper, opts Options) (*Dataset, error) {
	if hf.name != "" {
		sub := filepath.Join(dir, hf.name)
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%s: no config %q (a subfolder of that name)", dir, hf.name)
		}
		dir = sub
	}
	files, err := dirFiles(dir)
	if err != nil {
		return nil, err
	}
	splits := splitFiles(dir, files)
	names := make([]string, 0, len(splits))
	for s := range splits {
		names = append(names, s)
	}
	slices.Sort(names)
	split := hf.split
	switch {
	case split != "":
		if splits[split] == nil {
			return nil, fmt.Errorf("%s: no split %q (splits: %s)", dir, split, strings.Join(names, ", "))
		}
	case splits["train"] != nil:
		split = "train"
	case len(names) == 1:
		split = names[0]
	default:
		return nil, fmt.Errorf("%s: several splits (%s): choose one with kind=huggingface,source=%s,split=NAME", dir, strings.Join(names, ", "), dir)
	}
	chosen := splits[split]
	format := chosen[0].format
	sums := sha256.New()
	var t *table
	for _, f := range chosen {
		if f.format != format {
			return nil, fmt.Errorf("%s: split %q mixes %s and %s files (%s)", dir, split, format, f.format, f.rel)
		}
		fd, err := readFile(f.path)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(sums, "%s  %s\n", fd.sha256, filepath.ToSlash(f.rel))
		ft, err := parseTable(f.path, format, fd.data)
		if err != nil {
			return nil, err
		}
		if t == nil {
			t = &table{name: dir, format: format, index: map[string]int{}}
		}
		if err := t.appendShard(ft); err != nil {
			return nil, err
		}
	}
	src := origin{path: dir, format: format, sha256: hex.EncodeToString(sums.Sum(nil)), split: split}
	if ta != nil {
		return traceDataset(t, *ta, src, opts)
	}
	return tableDataset(t, src, mapper, opts)
}

// dirFiles lists the data files under dir, in path order, leaving out hidden
// entries, metadata and the datasets library's map() caches; a tree holding
// several cached datasets (dataset_info.json in more than one folder) is
// refused.
func dirFiles(dir string) ([]hfFile, error) {
	var files []hfFile
	var infos []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if p != dir && strings.HasPrefix(name, ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		if name == "dataset_info.json" {
			infos = append(infos, filepath.Dir(p))
			return nil
		}
		format := formatOf(name)
		if format == "" || isMetadata(name) {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, hfFile{path: p, rel: rel, format: format})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", dir, oneLineError(err))
	}
	if _, err := os.Stat(filepath.Join(dir, "dataset_dict.json")); err != nil && len(infos) > 1 {
		return nil, fmt.Errorf("%s holds several cached datasets (dataset_info.json in %s): give one of those folders", dir, strings.Join(infos, ", "))
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no data files (.parquet, .arrow, .jsonl, .json, .csv or .txt) in it", dir)
	}
	return files, nil
}

// isMetadata reports the JSON and Arrow files of a dataset directory that
// hold no records.
func isMetadata(name string) bool {
	switch name {
	case "state.json", "dataset_dict.json", "dataset_infos.json", "config.json":
		return true
	}
	return strings.HasPrefix(name, "cache-") && strings.HasSuffix(name, ".arrow")
}

// formatOf returns a data file's format from its name ("" when none).
func formatOf(name string) string {
	name = strings.TrimSuffix(strings.ToLower(name), ".gz")
	switch filepath.Ext(name) {
	case ".jsonl", ".ndjson":
		return formatJSONL
	case ".json":
		return formatJSON
	case ".csv":
		return formatCSV
	case ".txt", ".text":
		return formatText
	case ".parquet", ".pq":
		return formatParquet
	case ".arrow", ".feather", ".ipc", ".arrows":
		return formatArrow
	}
	return ""
}

// splitFiles groups files by split: the split names a dataset_info.json or
// dataset_dict.json lists, else the hub's split words, found as a word of
// the file's relative path. When no file names a split, all belong to the
// one split the metadata lists (a save_to_disk of one split), else to
// "train", as on the hub.
func splitFiles(dir string, files []hfFile) map[string][]hfFile {
	known := map[string]string{}
	for _, meta := range []string{"dataset_dict.json", "dataset_info.json"} {
		b, err := os.ReadFile(filepath.Join(dir, meta))
		if err != nil {
			continue
		}
		var m struct {
			Splits json.RawMessage `json:"splits"`
		}
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		var list []string
		var obj map[string]json.RawMessage
		if json.Unmarshal(m.Splits, &list) != nil && json.Unmarshal(m.Splits, &obj) == nil {
			for s := range obj {
				list = append(list, s)
			}
		}
		for _, s := range list {
			known[s] = s
		}
	}
	if len(known) == 0 {
		known = splitWords
	}
	out := map[string][]hfFile{}
	for _, f := range files {
		for _, w := range pathWords.FindAllString(filepath.ToSlash(strings.ToLower(f.rel)), -1) {
			if s, ok := known[w]; ok {
				out[s] = append(out[s], f)
				break
			}
		}
	}
	if len(out) == 0 {
		name := "train"
		if len(known) == 1 {
			for s := range known {
				name = s
			}
		}
		out[name] = files
	}
	return out
}

// appendShard appends the rows of another file of the same format.
func (t *table) appendShard(s *table) error {
	if s.format == formatCSV || s.format == formatText {
		// Positional records: every shard needs the same columns.
		if len(t.rows) > 0 && !slices.Equal(t.columns, s.columns) {
			return fmt.Errorf("%s: columns %s differ from the first file's (%s)", s.name, quoteList(s.columns), quoteList(t.columns))
		}
	}
	for _, c := range s.columns {
		t.addColumn(c)
	}
	for _, r := range s.rows {
		r.file = s.name
		t.rows = append(t.rows, r)
	}
	return nil
}

// hubID matches a Hugging Face hub dataset id: owner/name.
var hubID = regexp.MustCompile(`^[A-Za-z0-9][\w.-]*/[\w.-]+$`)

// hubError is the answer to a hub id that is not a local path.
func hubError(id string) error {
	return fmt.Errorf("%s: no such local path; goodput reads only local copies of Hugging Face datasets, it never downloads: fetch one with 'huggingface-cli download --repo-type dataset %s --local-dir DIR' and give --data DIR", id, id)
}

// hubCache returns the local hub cache's snapshot of dataset id (the one
// refs/main names, else the only one), or "".
func hubCache(id string) string {
	var roots []string
	if c := os.Getenv("HF_HUB_CACHE"); c != "" {
		roots = append(roots, c)
	}
	if h := os.Getenv("HF_HOME"); h != "" {
		roots = append(roots, filepath.Join(h, "hub"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(h, ".cache", "huggingface", "hub"))
	}
	for _, root := range roots {
		repo := filepath.Join(root, "datasets--"+strings.ReplaceAll(id, "/", "--"))
		if ref, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
			snap := filepath.Join(repo, "snapshots", strings.TrimSpace(string(ref)))
			if fi, err := os.Stat(snap); err == nil && fi.IsDir() {
				return snap
			}
		}
		if snaps, err := os.ReadDir(filepath.Join(repo, "snapshots")); err == nil && len(snaps) == 1 {
			return filepath.Join(repo, "snapshots", snaps[0].Name())
		}
	}
	return ""
}

// localSource resolves a huggingface source: a local file or directory, or a
// hub id found in the local hub cache.
func localSource(src string) (string, bool, error) {
	fi, err := os.Stat(src)
	switch {
	case err == nil:
		return src, fi.IsDir(), nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, fmt.Errorf("%s: %v", src, errors.Unwrap(err))
	case hubID.MatchString(src):
		if snap := hubCache(src); snap != "" {
			return snap, true, nil
		}
		return "", false, hubError(src)
	}
	return "", false, fmt.Errorf("%s: no such file or directory (give a local dataset directory or file)", src)
}
