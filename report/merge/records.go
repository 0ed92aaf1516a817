package merge

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// recStream reads one shard's records, one ahead.
type recStream struct {
	shard int
	name  string
	dec   *record.Decoder
	head  *record.Record
	done  bool
	count []int64 // records read per round
}

// next reads the stream's next record into head.
func (r *recStream) next(round int) error {
	if r.done {
		return nil
	}
	err := r.dec.Decode(r.head)
	if errors.Is(err, io.EOF) {
		r.done = true
		return nil
	}
	if err != nil {
		return refuse(r.name, "%s", err.Error())
	}
	switch b := r.head.Benchmark; {
	case b < round:
		return refuse(r.name, "record %d of round %d comes after round %d's records: the records are not in round order", r.head.ID, b, round)
	case b >= len(r.count) || b < 0:
		return refuse(r.name, "record %d belongs to round %d, the shard's report has %d rounds", r.head.ID, b, len(r.count))
	case r.head.Shard != r.shard:
		return refuse(r.name, "record %d is shard %d's, the report beside it is shard %d's", r.head.ID, r.head.Shard, r.shard)
	}
	return nil
}

// mergeRecords rebuilds every round exactly: all shards' records of the
// round go, in completion (End) order, into one Accumulator configured for
// the whole run (its phases and limits before the split, the shared start),
// and Finish runs with the shards' counters added. The result is the
// report one process would have written for these requests.
func (s *shardSet) mergeRecords(ctx context.Context) ([]*report.Benchmark, error) {
	rounds := int(s.info.Rounds)
	streams := make([]*recStream, s.n())
	for i, f := range s.files {
		rc, err := f.Records()
		if err != nil {
			return nil, fmt.Errorf("opening the records of %s: %w", f.Name, err)
		}
		defer rc.Close()
		name := f.RecordsName
		if name == "" {
			name = f.Name + " records"
		}
		streams[i] = &recStream{shard: i, name: name, dec: record.NewDecoder(rc, name), head: record.New(), count: make([]int64, rounds)}
		if err := streams[i].next(0); err != nil {
			return nil, err
		}
	}
	out := make([]*report.Benchmark, 0, rounds)
	for k := 0; k < rounds; k++ {
		cfg, err := s.mergedConfig(k)
		if err != nil {
			return nil, err
		}
		acc, err := accum.New(cfg)
		if err != nil {
			return nil, refuse(s.files[0].Name, "benchmark %d: %v", k, err)
		}
		for {
			var pick *recStream
			for _, st := range streams {
				if st.done || st.head.Benchmark != k {
					continue
				}
				if pick == nil || st.head.End < pick.head.End {
					pick = st
				}
			}
			if pick == nil {
				break
			}
			pick.head.ID = RecordID(pick.shard, pick.head.ID)
			acc.Add(pick.head)
			if pick.count[k]++; pick.count[k]%4096 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err := pick.next(k); err != nil {
				return nil, err
			}
		}
		bs := s.benchmarksOf(k)
		for i, st := range streams {
			if want := int64(bs[i].Extras.Requests.Recorded); st.count[k] != want {
				return nil, refuse(st.name, "has %d records of round %d, %s counted %d: the records do not belong to this report", st.count[k], k, s.files[i].Name, want)
			}
		}
		b := acc.Finish(s.mergedInfo(k))
		finishMerged(b, bs)
		out = append(out, b)
	}
	return out, nil
}
