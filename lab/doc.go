// Package lab is KRaft Lab's config lab without a page: the operator's what-if before a
// production rollout ("if we turn on wait-for-sync with these settings, what happens the next
// time we replace a disk on our cluster?"), answered on a model of their own cluster.
//
// It has five parts, each a file or two:
//   - describe.go, presets.go: an operator-facing Description of a cluster (brokers, topics,
//     replication, sizes and skew, produce rate, disks, NICs, throttles, the event to study)
//     that becomes a cluster-mode scenario, the format `kraftlab run` replays; presets for a
//     small cluster, the KIP's load test and a large cluster;
//   - properties.go: a pasted server.properties or `kafka-configs.sh --describe` output read
//     into overrides, every line accounted for (used, ignored as not modelled, or refused with
//     its line number and reason);
//   - override.go, run.go: overrides written into a scenario, and one run of it as a pure
//     function of scenario, seed and overrides, stepped by a Runner so that a caller (a Web
//     Worker, the CLI) can report progress and cancel between steps without goroutines;
//   - compare.go, verdict.go: two or more policies on the same cluster and seed, their time
//     series and the verdict table of KIP-1358's acceptance criteria;
//   - sweep.go, write.go: a grid of one or two configs run in parallel with results in cell
//     order, written as CSV or JSON; sensitivity.go: the comparison again with the model's
//     uncertain parameters (assumptions.go) at their low and high values;
//   - import*.go: an operator's own cluster read from what Kafka's tools print
//     (kafka-topics.sh, kafka-log-dirs.sh, kafka-metadata-quorum.sh, BytesInPerSec rates) into
//     a Description with its exact assignment (describe_assignment.go), every unused line
//     reported;
//   - plan*.go, report*.go: a rollout plan (rolling restart waiting for no under-replicated
//     partition, disk replacement, controlled shutdown, pause) rehearsed under the current and
//     the candidate config, and the change review's report in HTML (inline SVG) and Markdown.
//
// Everything here is deterministic: the same scenario, seed and overrides give the same
// figures, whatever the number of workers. This package imports cluster and cluster/scenario
// (and engine/config); wasm/bridge and cmd/kraftlab import it.
//
// The package also runs in the browser (lab.wasm, rehearse.wasm), whose size has a budget
// (docs/performance.md). Sorting for the wasm: a slice of structs sorted once per import or per run
// is sorted with sort.Slice, not slices.SortFunc, because the generic sort is compiled again for
// each struct type (about 20 KB of wasm a type) while sort.Slice is one copy for all of them.
package lab
