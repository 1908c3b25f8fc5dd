package tsgen

import (
	"reflect"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/cluster/broker"
	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/lab"
	"github.com/kraftlab/kraftlab/wasm/bridge"
	"github.com/kraftlab/kraftlab/wasm/bridge/labmsg"
)

// t is reflect.TypeFor, short for the tables below.
func t[T any]() reflect.Type { return reflect.TypeFor[T]() }

// none is the body of a request that takes none.
const none = "Record<string, never>"

// Files are the generated modules: the playground's protocol types, and the lesson panel's,
// which join the playground's Messages.
func Files() []File {
	return []File{playground(), lesson(), labPage()}
}

func playground() File {
	var states []string
	for s := broker.NotRunning; s <= broker.ShuttingDown; s++ {
		states = append(states, lower(s.String()))
	}
	var types []string
	for _, ty := range []config.Type{config.Boolean, config.Int, config.Long, config.String} {
		types = append(types, ty.String())
	}
	var sources []string
	for _, s := range []config.Source{config.Kafka, config.KIP1358, config.PR22934, config.Model} {
		sources = append(sources, bridge.SourceKey(s))
	}
	frame := t[bridge.Frame]()
	return File{
		Path: "web/ts/protocol_gen.ts",
		Header: `The worker protocol's message types (web/PROTOCOL.md), from wasm/bridge's Go types:
edit those and run go run ./web/cmd/tsgen. protocol.ts re-exports them with the client.`,
		Unions: []Union{
			{Name: "ActOp", Values: bridge.Acts(), Doc: "What sim.act can do (wasm/bridge, Acts)."},
			{Name: "BrokerLifecycle", Values: states, Doc: "A broker's own lifecycle state, Kafka's BrokerState in lower case."},
			{Name: "ConfigType", Values: types, Doc: "Kafka's config type names."},
			{Name: "ConfigScope", Values: []string{"cluster", "topic"}},
			{Name: "SourceKey", Values: sources, Doc: "Where a config comes from, as a stable key (bridge.SourceKey)."},
			{Name: "ConfigSource", Values: []string{"static", "log"}, Doc: "Where a config's effective value was set: the static configs, or a ConfigRecord in the log."},
			{Name: "ConfigValue", Type: "boolean | number | string | null", Doc: "A config value as the page sends it; null removes an override."},
			{Name: "ElectionType", Values: []string{"preferred", "unclean"}, Doc: "elect_leaders' election type."},
			{Name: "StepTo", Values: []string{"event", "run"}, Doc: "How far sim.step goes."},
			{Name: "EventKind", Values: []string{bridge.KindAction, bridge.KindBroker, bridge.KindPartition, bridge.KindController,
				bridge.KindBalancer, bridge.KindConfig, bridge.KindTopic, bridge.KindStopped, bridge.KindNotice}, Doc: "What an event-log line is about, for styling."},
			{Name: "DecisionKind", Values: []string{cluster.DecisionSessionExpired, cluster.DecisionFenced, cluster.DecisionUnfenced,
				cluster.DecisionLeader, cluster.DecisionIsr, cluster.DecisionBalancerRun, cluster.DecisionQuorumLeader,
				cluster.DecisionSnapshot}, Doc: "What a controller decided (cluster.Happening.Decision)."},
			{Name: "DecisionElection", Values: []string{cluster.ElectionPreferred, cluster.ElectionOnline, cluster.ElectionUnclean,
				cluster.ElectionControlledShutdown, cluster.ElectionNone}, Doc: "How a leader decision elected (cluster.Happening.Election)."},
		},
		Consts: []Const{
			{Name: "MAX_BUDGET_MS", Value: bridge.MaxBudgetMs, Doc: "The most sim.advance's budgetMs may be (bridge.MaxBudgetMs); the worker refuses more."},
		},
		Types: []reflect.Type{
			t[bridge.Error](), t[bridge.ReadyBody](), t[bridge.HelloBody](), t[bridge.ConfigDefsBody](),
			t[bridge.ValidateRequest](), t[bridge.ValidateBody](), t[bridge.StartRequest](), t[bridge.StartBody](),
			t[bridge.AdvanceRequest](), t[bridge.FrameRequest](), t[bridge.ActRequest](), t[bridge.ActBody](),
			t[bridge.SeekRequest](), t[bridge.StepRequest](), t[bridge.HistoryBody](), t[bridge.ExportBody](),
			t[bridge.LoadRequest](), t[bridge.LoadBody](), t[bridge.ReplicaRequest](), t[bridge.ReplicaBody](), frame,
			t[bridge.MemoryBody](),
		},
		Names: map[reflect.Type]string{frame: "FrameBody", t[bridge.Error](): "ReplyError"},
		Messages: []Message{
			{Type: "hello", ReqTS: none, Res: t[bridge.HelloBody]()},
			{Type: "debug.memory", ReqTS: none, Res: t[bridge.MemoryBody]()},
			{Type: "config.defs", ReqTS: none, Res: t[bridge.ConfigDefsBody]()},
			{Type: "config.validate", Req: t[bridge.ValidateRequest](), Res: t[bridge.ValidateBody]()},
			{Type: "sim.start", Req: t[bridge.StartRequest](), Res: t[bridge.StartBody]()},
			{Type: "sim.advance", Req: t[bridge.AdvanceRequest](), Res: frame},
			{Type: "sim.frame", Req: t[bridge.FrameRequest](), Res: frame},
			{Type: "sim.replica", Req: t[bridge.ReplicaRequest](), Res: t[bridge.ReplicaBody]()},
			{Type: "sim.act", Req: t[bridge.ActRequest](), Res: t[bridge.ActBody]()},
			{Type: "sim.seek", Req: t[bridge.SeekRequest](), Res: frame},
			{Type: "sim.step", Req: t[bridge.StepRequest](), Res: frame},
			{Type: "sim.history", ReqTS: none, Res: t[bridge.HistoryBody]()},
			{Type: "sim.export", ReqTS: none, Res: t[bridge.ExportBody]()},
			{Type: "sim.load", Req: t[bridge.LoadRequest](), Res: t[bridge.LoadBody]()},
		},
		Sources: []string{"wasm/bridge"},
	}
}

func lesson() File {
	load := t[bridge.LoadBody]()
	return File{
		Path: "web/ts/lesson/protocol.ts",
		Header: `The lesson.* messages' types (web/PROTOCOL.md, "Lessons"), from wasm/bridge/lesson.go:
edit those and run go run ./web/cmd/tsgen. They join protocol.ts's Messages by declaration
merging, so WorkerClient.request is typed for them.`,
		Imports: []string{`import type { LoadBody } from "../protocol_gen";`},
		Unions: []Union{
			{Name: "LessonPlay", Values: []string{"reference", "demo", "continue"}, Doc: "What lesson.play plays."},
		},
		Types: []reflect.Type{t[bridge.LessonListBody](), t[bridge.LessonOpenRequest](), t[bridge.LessonOpenBody](),
			t[bridge.LessonCheckBody](), t[bridge.LessonPlayRequest](), t[bridge.LessonPlayBody]()},
		Extern: map[reflect.Type]bool{load: true},
		Messages: []Message{
			{Type: "lesson.list", ReqTS: none, Res: t[bridge.LessonListBody]()},
			{Type: "lesson.open", Req: t[bridge.LessonOpenRequest](), Res: t[bridge.LessonOpenBody]()},
			{Type: "lesson.check", ReqTS: none, Res: t[bridge.LessonCheckBody]()},
			{Type: "lesson.play", Req: t[bridge.LessonPlayRequest](), Res: t[bridge.LessonPlayBody]()},
			{Type: "lesson.undo", ReqTS: none, Res: t[bridge.LessonCheckBody]()},
		},
		Augment: "../protocol_gen",
		Sources: []string{"wasm/bridge"},
	}
}

func labPage() File {
	return File{
		Path: "web/ts/lab/protocol_gen.ts",
		Header: `The lab.* messages' types (web/PROTOCOL.md, "The config lab"), from wasm/bridge/labmsg's
and package lab's Go types: edit those and run go run ./web/cmd/tsgen. They join
protocol.ts's Messages by declaration merging, so WorkerClient.request is typed for them.`,
		Unions: []Union{
			{Name: "VerdictStatus", Values: []string{string(lab.Pass), string(lab.Fail), string(lab.NotMeasured)}},
			{Name: "PropertyStatus", Values: []string{string(lab.Used), string(lab.Ignored), string(lab.Invalid), string(lab.Header)},
				Doc: "What the lab made of one pasted properties line."},
			{Name: "ExportKind", Values: []string{"compare", "sweep"}},
			{Name: "ExportFormat", Values: []string{"csv", "json"}},
		},
		Types: []reflect.Type{t[labmsg.PresetsBody](), t[labmsg.PlanRequest](), t[labmsg.PlanBody](), t[labmsg.StartRequest](),
			t[labmsg.ProgressBody](), t[labmsg.StepRequest](), t[labmsg.ResultBody](), t[labmsg.JudgeRequest](),
			t[labmsg.JudgeBody](), t[labmsg.ExportRequest](), t[labmsg.ExportBody]()},
		Names: map[reflect.Type]string{t[lab.SummaryJSON](): "Summary", t[lab.Event](): "LabEvent",
			t[labmsg.StartRequest](): "RunStartRequest", t[labmsg.StepRequest](): "RunStepRequest",
			// Inside the Messages augmentation a name resolves in the playground's module
			// first: a lab type must not share a name with one of protocol_gen.ts's.
			t[labmsg.ExportBody](): "LabExportBody"},
		Messages: []Message{
			{Type: "lab.presets", ReqTS: none, Res: t[labmsg.PresetsBody]()},
			{Type: "lab.plan", Req: t[labmsg.PlanRequest](), Res: t[labmsg.PlanBody]()},
			{Type: "lab.run.start", Req: t[labmsg.StartRequest](), Res: t[labmsg.ProgressBody]()},
			{Type: "lab.run.step", Req: t[labmsg.StepRequest](), Res: t[labmsg.ProgressBody]()},
			{Type: "lab.run.result", ReqTS: none, Res: t[labmsg.ResultBody]()},
			{Type: "lab.judge", Req: t[labmsg.JudgeRequest](), Res: t[labmsg.JudgeBody]()},
			{Type: "lab.drop", ReqTS: "{ ids?: number[] }", ResTS: none},
			{Type: "lab.export", Req: t[labmsg.ExportRequest](), Res: t[labmsg.ExportBody]()},
		},
		Augment: "../protocol_gen",
		Sources: []string{"wasm/bridge/labmsg", "lab"},
	}
}

// lower is s in lower case (ASCII: Kafka's state names).
func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
