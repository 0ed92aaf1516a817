package reqtype

import "testing"

// Every name, alias and path picks one type, and every type is found by
// each of them.
func TestNamesAreUnique(t *testing.T) {
	seen := map[string]string{}
	for i := range All {
		ty := &All[i]
		for _, n := range append([]string{ty.Name, ty.Path}, ty.Aliases...) {
			if other, ok := seen[n]; ok {
				t.Fatalf("%q names both %s and %s", n, other, ty.Name)
			}
			seen[n] = ty.Name
			if got, ok := ByName(n); !ok || got != ty {
				t.Fatalf("ByName(%q) = %v, want %s", n, got, ty.Name)
			}
		}
		if got, ok := ByPath(ty.Path); !ok || got != ty {
			t.Fatalf("ByPath(%q) = %v", ty.Path, got)
		}
		if ty.Profile {
			if got, ok := ByAIPerf(ty.AIPerf); !ok || got != ty {
				t.Fatalf("ByAIPerf(%q) = %v", ty.AIPerf, got)
			}
		}
	}
	if _, ok := ByName("images"); ok {
		t.Fatal(`"images" found`)
	}
	if _, ok := ByAIPerf("score"); ok { // not one profile takes
		t.Fatal(`profile's "score" found`)
	}
}

// A type that never streams has the request latency for its default SLO;
// transcriptions switch to it without their stream.
func TestDefaultSLO(t *testing.T) {
	chat, _ := ByName("chat_completions")
	tr, _ := ByName("audio_transcriptions")
	emb, _ := ByName("embeddings")
	for _, c := range []struct {
		t      *Type
		stream bool
		want   SLO
	}{{chat, true, SLOTokens}, {chat, false, SLOTokens}, {tr, true, SLOTokens}, {tr, false, SLOLatency}, {emb, true, SLOLatency}} {
		if got := c.t.DefaultSLO(c.stream); got != c.want {
			t.Errorf("%s stream=%v: %v, want %v", c.t.Name, c.stream, got, c.want)
		}
	}
}

func TestJoin(t *testing.T) {
	for _, c := range []struct {
		in   []string
		last string
		want string
	}{{nil, "or", ""}, {[]string{"a"}, "or", "a"}, {[]string{"a", "b"}, "and", "a and b"}, {[]string{"a", "b", "c"}, "or", "a, b or c"}, {[]string{"a", "b"}, "", "a, b"}} {
		if got := Join(c.in, c.last); got != c.want {
			t.Errorf("Join(%q, %q) = %q, want %q", c.in, c.last, got, c.want)
		}
	}
}

// vLLM's /pooling and the audio translations are rows of their own:
// found by each of GuideLLM's spellings, with the report's names and the
// default SLO their responses allow, and translations on the
// transcriptions' API.
func TestPoolingAndTranslations(t *testing.T) {
	for _, n := range []string{"pooling", "/pooling"} {
		if p, ok := ByName(n); !ok || p.Path != PathPooling || p.API != APIPooling || !p.Pooling() || p.RouteFormat() != "/pooling" ||
			p.ReportName() != "pooling" || p.DefaultSLO(true) != SLOLatency || p.Batch != "" || p.Profile {
			t.Errorf("ByName(%q) = %+v", n, p)
		}
	}
	tr, _ := ByName("audio_transcriptions")
	for _, n := range []string{"audio_translations", "translations", "/v1/audio/translations"} {
		p, ok := ByName(n)
		if !ok || p.Path != PathTranslations || p.API != tr.API || p.ReportName() != "audio/translations" || p.RouteFormat() != PathTranslations ||
			p.DefaultSLO(true) != SLOTokens || p.DefaultSLO(false) != SLOLatency || p.NeedsMedia != "audio" || p.Inputs != tr.Inputs {
			t.Errorf("ByName(%q) = %+v", n, p)
		}
	}
}
