package metadata

import (
	"regexp"
	"strings"

	"github.com/goodput-dev/goodput/telemetry"
)

// canonicalEngine returns the canonical name of an engine alias (the
// engine table's names and aliases), "" when s names no known engine.
func canonicalEngine(s string) string {
	e, _ := telemetry.LookupEngine(s)
	return e.Name
}

// versionEndpointEngine says the engine's GET /version answers {"version":
// …} with its own version. For others (or an unknown engine) a /version
// answer may come from a gateway in front of the engine, so it is not
// recorded.
func versionEndpointEngine(name string) bool {
	e, ok := telemetry.LookupEngine(name)
	return ok && e.VersionEndpoint
}

// productRe matches one product of a Server or X-Powered-By header,
// "name/version" or "name".
var productRe = regexp.MustCompile(`([A-Za-z][A-Za-z0-9._-]*)(?:/([A-Za-z0-9][A-Za-z0-9._+-]*))?`)

// headerEngine finds a known engine in a Server or X-Powered-By header
// value ("text-generation-inference/2.4.0", "sglang", "uvicorn" …). Web
// servers and proxies (uvicorn, nginx, envoy …) name no engine.
func headerEngine(v string) (engine, version string) {
	for _, m := range productRe.FindAllStringSubmatch(v, 8) {
		if e := canonicalEngine(m[1]); e != "" {
			return e, m[2]
		}
	}
	return "", ""
}

// engineVersionRe splits a declared engine like "vllm-0.9.1",
// "sglang==0.4.6.post1" or "tgi/2.4.0" into name and version.
var engineVersionRe = regexp.MustCompile(`^(.+?)(?:[-_/@: ]|==)v?([0-9]+(?:\.[0-9A-Za-z]+)+[0-9A-Za-z.+-]*)$`)

// splitEngine splits "vllm-0.9.1" into ("vllm", "0.9.1"); a value without
// a version is returned whole.
func splitEngine(s string) (name, version string) {
	if m := engineVersionRe.FindStringSubmatch(s); m != nil {
		return m[1], m[2]
	}
	return s, ""
}

// trimEnginePrefix removes a leading engine name from a version string
// ("goodput-mock-0.1.0" → "0.1.0").
func trimEnginePrefix(version, engine string) string {
	low := strings.ToLower(version)
	for _, sep := range []string{"-", " ", "/", "=="} {
		if p := engine + sep; strings.HasPrefix(low, p) && len(version) > len(p) {
			return version[len(p):]
		}
	}
	return version
}

// hfSnapshotRe finds a Hugging Face hub cache snapshot in a path:
// …/models--ORG--NAME/snapshots/COMMIT.
var hfSnapshotRe = regexp.MustCompile(`models--([^/]+?)--([^/]+)/snapshots/([0-9a-f]{40})`)

// hfRepoRe matches a Hugging Face repository id, "org/name".
var hfRepoRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
