package run

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/sweep"
)

// runFiles says where one run writes its outputs. It is resolved and the
// directory made writable before any load is sent.
type runFiles struct {
	dir          string // the run directory
	json, csv    string // report files
	html, yaml   string // set by place; "": htmlPath's and yamlPath's defaults
	jsonl        string // per-request records
	created      bool   // dir was created by this run
	runID        string
	overwriteAll bool
}

// defaultRunID is a UTC timestamp plus a short hash of the configuration,
// e.g. 20260616T120000-3f2a9c: the same configuration started in another
// second gets another id, and the hash tells configurations apart.
func defaultRunID(now time.Time, config string) string {
	h := sha256.Sum256([]byte(config))
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(h[:3])
}

// shardRunID is a sharded run's id, the same in every pod: the explicit
// one when given, else the shared start instant (UTC) and the shard
// configuration's hash (defaultRunID would use each pod's own clock).
func shardRunID(explicit string, startAt int64, configHash string) string {
	if explicit != "" {
		return explicit
	}
	return time.Unix(0, startAt).UTC().Format("20060102T150405") + "-" + configHash[:6]
}

// shardSuffix names a shard's run directory: "-shard-2-of-4". With
// --output-path FILE.json the file is the user's name for this shard's
// report and is written exactly (an Indexed Job names it per pod); without
// one, the run directory <run-id>-shard-i-of-n keeps shards that share a
// volume apart.
func shardSuffix(s sweep.Shard) string {
	return fmt.Sprintf("-shard-%d-of-%d", s.Index, s.Count)
}

func outputPathIsDir(p string) bool {
	st, err := os.Stat(p)
	return strings.HasSuffix(p, "/") || (err == nil && st.IsDir())
}

// CheckOutputPath checks the form of --output-path: a .json file or a
// directory ("" when not given).
func CheckOutputPath(p string) error {
	if p == "" || outputPathIsDir(p) || filepath.Ext(p) == ".json" {
		return nil
	}
	return usagef("--output-path %q: want a .json file or a directory", p)
}

// resolveRunFiles applies --output-path / --output-dir / --run-id. With
// --output-path FILE.json, outputs go beside that file with the same stem
// (GuideLLM's form, for Job command lines); otherwise into
// <output-dir>/<run-id>/. An existing run is never overwritten without
// --force. With claim (a generated run id), the run directory is made
// atomically, and errTaken says another run made it first.
func resolveRunFiles(outputPath, outputDir, runID string, force, claim bool) (*runFiles, error) {
	rf := &runFiles{runID: runID, overwriteAll: force}
	if outputPath != "" {
		if outputPathIsDir(outputPath) {
			outputDir = outputPath
		} else {
			if err := CheckOutputPath(outputPath); err != nil {
				return nil, err
			}
			ext := filepath.Ext(outputPath)
			stem := strings.TrimSuffix(outputPath, ext)
			rf.dir = filepath.Dir(outputPath)
			rf.json, rf.csv, rf.jsonl = outputPath, stem+".csv", stem+".jsonl"
			if err := os.MkdirAll(rf.dir, 0o755); err != nil {
				return nil, fmt.Errorf("--output-path: %w", err)
			}
			for _, o := range outputTable {
				if o.path == nil {
					continue
				}
				if _, err := os.Stat(o.path(rf)); err == nil && !force {
					return nil, usagef("--output-path: %s exists; a run never overwrites another (use another name, or --force)", o.path(rf))
				}
			}
			return rf, checkWritable(rf.dir)
		}
	}
	if outputDir == "" {
		return nil, usagef("--output-dir is empty")
	}
	rf.dir = filepath.Join(outputDir, runID)
	if claim && !force {
		if err := os.MkdirAll(outputDir, 0o755); err != nil {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		switch err := os.Mkdir(rf.dir, 0o755); {
		case errors.Is(err, fs.ErrExist):
			return nil, errTaken
		case err != nil:
			return nil, fmt.Errorf("output directory: %w", err)
		}
		rf.created = true
	} else if _, err := os.Stat(rf.dir); err == nil {
		if !force {
			return nil, usagef("run %q already exists in %s: the same run id means the same run (choose another --run-id, or --force to overwrite)", runID, outputDir)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("output directory: %w", err)
	} else {
		rf.created = true
	}
	if err := os.MkdirAll(rf.dir, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	rf.json = filepath.Join(rf.dir, "benchmarks.json")
	rf.csv = filepath.Join(rf.dir, "benchmarks.csv")
	rf.jsonl = filepath.Join(rf.dir, "requests.jsonl")
	return rf, checkWritable(rf.dir)
}

// errTaken says a generated run id's directory or scorecard file was made
// by another run started in the same second with the same configuration.
var errTaken = errors.New("run id taken by another run")

// maxRunIDSuffix bounds the suffixes (-2, -3, …) tried for a generated
// run id already taken.
const maxRunIDSuffix = 100

// place puts the single outputs of files (kind → path; the kinds whose
// row has a place: csv, html, yaml) at their own paths, making their
// directories; an existing file is refused without force, as a run's own
// files are.
func (rf *runFiles) place(files map[string]string, force bool) error {
	kinds := make([]string, 0, len(files))
	for k := range files {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		p := files[k]
		o, _ := lookupOutput(k)
		if o.place == nil {
			return usagef("--output kind=%s: a path of its own is not supported (it goes beside the JSON report)", k)
		}
		o.place(rf, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("--output kind=%s: %w", k, err)
		}
		if _, err := os.Stat(p); err == nil && !force {
			return usagef("--output kind=%s,path=%s: the file exists; a run never overwrites another (use another name, or --force)", k, p)
		}
	}
	return nil
}

// checkWritable proves the directory takes a file and has some room, so a
// run fails before its load, not after.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".goodput-write-check-*")
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	name := f.Name()
	defer os.Remove(name)
	if _, err := f.Write(make([]byte, 64<<10)); err != nil {
		f.Close()
		return fmt.Errorf("output directory %s cannot take a 64 KiB file: %w", dir, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	return f.Close()
}

// WriteFileAtomic writes a file through a temporary name and a rename, so
// an interrupted write never leaves a half file under the final name.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
