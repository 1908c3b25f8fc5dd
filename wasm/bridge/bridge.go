// Package bridge is KRaft Lab's message API between the page and the simulation: one JSON
// request in, one JSON reply out. It imports no JavaScript, so it builds and tests natively;
// wasm/worker carries its messages to and from the browser. The protocol is documented in
// web/PROTOCOL.md, which must change together with this package.
//
// Each wasm program picks its messages: New is the playground's (hello, config.*, sim.*,
// lesson.*); NewCore answers hello only, and the config lab's program adds the lab.* messages
// of package labmsg with Register. Keeping the lab out of New is what keeps it out of the
// playground's wasm, and the simulation session and lessons out of the lab's: the linker drops
// what no registered handler reaches.
//
// This package may import engine/, cluster/ and lessons/; nothing of KRaft Lab's may import
// it except the wasm/ room (and web/build, for the lesson index).
package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
)

// panicDetail is a panic's stack for the crash report. The site's wasm ships without line
// tables (internal/wasmstrip), so its frames read "?:0": the report then says how to get them.
func panicDetail(stack []byte) string {
	if bytes.Contains(stack, []byte("\t?:0")) {
		return string(stack) + strippedLinesNote
	}
	return string(stack)
}

// strippedLinesNote ends the stack of a panic in a wasm without line tables.
const strippedLinesNote = "(file:line are stripped from the site's wasm. The page link holds the run: export it and replay it with " +
	"`kraftlab run`, natively, for the full traceback, or build the site with `go run build.go -lines`.)\n"

// ProtocolVersion is bumped whenever a message changes incompatibly, so that a page served
// from a cache never talks to a newer worker without noticing. Version 2 added the sim.*
// messages and replies with a binary attachment (the frame's per-partition arrays); version 3
// the run's history (sim.seek, sim.step, sim.history, sim.export, sim.load) and the remaining
// actions.
const ProtocolVersion = 3

// Error codes of a failed reply. They are part of the protocol: the page branches on them.
const (
	// CodeBadRequest: the message is not a JSON request envelope, or its body does not match
	// the message type.
	CodeBadRequest = "bad_request"
	// CodeUnknownType: no handler is registered for the message type.
	CodeUnknownType = "unknown_type"
	// CodeInternal: the handler panicked or its result could not be encoded. It is a bug in
	// KRaft Lab; Detail carries the Go stack for the report.
	CodeInternal = "internal"
	// CodeFailed: the handler ran and returned an ordinary error.
	CodeFailed = "failed"
)

// Error is the error of a failed reply. Handlers return it to choose the code; any other
// error becomes CodeFailed.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Detail is extra text for a bug report (a stack trace), never shown as the main message.
	Detail string `json:"detail,omitempty"`
}

// Error returns "code: message", for logs; the page shows Message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// BadRequest returns a CodeBadRequest error.
func BadRequest(format string, args ...any) *Error {
	return &Error{Code: CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

// Request is the envelope of every message the page sends.
type Request struct {
	// ID is chosen by the sender (a positive integer) and echoed in the reply, which is how
	// the page matches replies to requests.
	ID   int64           `json:"id"`
	Type string          `json:"type"`
	Body json.RawMessage `json:"body,omitempty"`
	// Data is the length in bytes of the binary attachment that travels with this request
	// (see DataHandler); absent when there is none.
	Data int `json:"data,omitempty"`
}

// Reply is the envelope of every answer. Exactly one of Body and Error is set: OK says which.
type Reply struct {
	ID    int64  `json:"id"`
	Type  string `json:"type"`
	OK    bool   `json:"ok"`
	Body  any    `json:"body,omitempty"`
	Error *Error `json:"error,omitempty"`
	// Data is the length in bytes of the binary attachment that travels with this reply (see
	// Attached); absent when there is none.
	Data int `json:"data,omitempty"`
}

// Attached is a handler result with a binary attachment: Body is encoded as the reply's JSON
// body and Data travels beside it as raw bytes (the worker posts it as a transferable
// ArrayBuffer), because bulk arrays such as a frame's per-partition state are far cheaper to
// copy than to encode as JSON. Data may alias a buffer the handler reuses: it is only valid
// until the next call to Handle.
type Attached struct {
	Body any
	Data []byte
}

// Event is a message the worker sends unasked (it has no id), such as "ready".
type Event struct {
	Type string `json:"type"`
	Body any    `json:"body,omitempty"`
}

// Handler answers one message type. body is the request's raw body (nil when absent); the
// result is encoded as the reply's body. Use Decode to read body strictly.
type Handler func(body json.RawMessage) (any, error)

// DataHandler is a Handler that also takes the request's binary attachment (nil when it has
// none), for a request whose bulk is text or bytes: the tools' outputs a rehearsal imports are
// tens of MB, which as a JSON string cost the page an encoding and the worker two decodings.
// data is only valid until the handler returns.
type DataHandler func(body json.RawMessage, data []byte) (any, error)

// Info describes the running program for the hello message.
type Info struct {
	// Version is KRaft Lab's version, stamped at build time (see build.go's -version flag).
	Version string
}

// Bridge dispatches requests to handlers. It is not safe for concurrent use: the worker feeds
// it one message at a time, in arrival order, which is also what keeps a run deterministic.
type Bridge struct {
	info     Info
	handlers map[string]handler
	session  *Session
}

// NewCore returns a bridge that answers hello only; a program adds the messages it serves
// with Register, and hello lists them.
func NewCore(info Info) *Bridge {
	b := &Bridge{info: info, handlers: map[string]handler{}}
	b.Register("hello", b.hello)
	return b
}

// RegisterDebug adds debug.memory, the Go runtime's memory figures, for the programs whose
// workers make bench-page measures (the playground's and the lab's). The rehearsal's program
// leaves it out: runtime.ReadMemStats is about 7 KB of wasm, and rehearse.wasm is the one
// closest to its size budget.
func RegisterDebug(b *Bridge) { b.Register("debug.memory", debugMemory) }

// New returns the playground's bridge (wasm/cmd/kraftlab-wasm): hello, config.*, sim.* and
// lesson.* (see web/PROTOCOL.md). The config lab's messages are not here but in package
// labmsg, served by the lab page's own wasm.
func New(info Info) *Bridge {
	b := NewCore(info)
	RegisterDebug(b)
	b.Register("config.defs", configDefs)
	b.Register("config.validate", configValidate)
	s := &Session{}
	b.session = s
	b.Register("sim.start", s.start)
	b.Register("sim.advance", s.advance)
	b.Register("sim.act", s.act)
	b.Register("sim.frame", s.frame)
	b.Register("sim.replica", s.replica)
	b.Register("sim.seek", s.seekMsg)
	b.Register("sim.step", s.step)
	b.Register("sim.history", s.historyMsg)
	b.Register("sim.export", s.export)
	b.Register("sim.load", s.load)
	// The lesson runner's lesson.* messages (lesson.go).
	registerLessons(b, s)
	return b
}

// Register adds a handler for a message type. Registering a type twice is a programming error
// and panics at start-up, long before any message arrives.
func (b *Bridge) Register(typ string, h Handler) { b.add(typ, handler{plain: h}, h == nil) }

// RegisterData adds a handler that takes the request's binary attachment, as Register does.
func (b *Bridge) RegisterData(typ string, h DataHandler) { b.add(typ, handler{data: h}, h == nil) }

// handler is a registered Handler or DataHandler. Kept apart rather than wrapping a Handler in
// a closure, so that dispatch can refuse an attachment sent to a message that takes none.
type handler struct {
	plain Handler
	data  DataHandler
}

func (b *Bridge) add(typ string, h handler, missing bool) {
	if typ == "" || missing {
		panic("bridge: Register needs a type and a handler")
	}
	if _, dup := b.handlers[typ]; dup {
		panic("bridge: message type registered twice: " + typ)
	}
	b.handlers[typ] = h
}

// Types returns the registered message types, sorted.
func (b *Bridge) Types() []string {
	out := make([]string, 0, len(b.handlers))
	for t := range b.handlers {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Handle answers one request. It never panics and always returns a JSON reply: a malformed
// request, an unknown type, a handler error and a handler panic all become a failed reply, so
// a bug in one message can never take the worker (and with it the page) down. data is the
// reply's binary attachment (nil for most replies; see Attached); it is only valid until the
// next call.
func (b *Bridge) Handle(msg []byte) (reply, data []byte) { return b.HandleData(msg, nil) }

// HandleData is Handle for a request with a binary attachment, in (nil: none), whose length
// the request's data field announces.
func (b *Bridge) HandleData(msg, in []byte) (reply, data []byte) {
	var req Request
	r, data := b.dispatch(msg, in, &req)
	out, err := marshal(r)
	if err != nil {
		// The body could not be encoded (or its MarshalJSON panicked): still answer.
		out, _ = json.Marshal(Reply{ID: req.ID, Type: req.Type, Error: &Error{
			Code: CodeInternal, Message: "cannot encode reply: " + err.Error()}})
		data = nil
	}
	return out, data
}

func (b *Bridge) dispatch(msg, in []byte, req *Request) (reply Reply, data []byte) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil {
		*req = Request{}
		return failed(*req, BadRequest("message is not a request envelope: %v", err)), nil
	}
	if dec.More() {
		return failed(*req, BadRequest("trailing data after the request")), nil
	}
	if req.ID <= 0 {
		return failed(*req, BadRequest("id must be a positive integer")), nil
	}
	if req.Data != len(in) {
		return failed(*req, &Error{Code: CodeBadRequest, Message: "data is not the length of the request's attachment"}), nil
	}
	h, ok := b.handlers[req.Type]
	if !ok {
		return failed(*req, &Error{Code: CodeUnknownType, Message: fmt.Sprintf("unknown message type %q", req.Type)}), nil
	}
	defer func() {
		if p := recover(); p != nil {
			reply = failed(*req, &Error{Code: CodeInternal,
				Message: fmt.Sprintf("%s handler panicked: %v", req.Type, p), Detail: panicDetail(debug.Stack())})
			data = nil
		}
	}()
	var body any
	var err error
	switch {
	case h.data != nil:
		body, err = h.data(req.Body, in)
	case in != nil:
		err = &Error{Code: CodeBadRequest, Message: "this message type takes no attachment"}
	default:
		body, err = h.plain(req.Body)
	}
	if err != nil {
		return failed(*req, err), nil
	}
	if a, ok := body.(Attached); ok {
		return Reply{ID: req.ID, Type: req.Type, OK: true, Body: a.Body, Data: len(a.Data)}, a.Data
	}
	return Reply{ID: req.ID, Type: req.Type, OK: true, Body: body}, nil
}

func failed(req Request, err error) Reply {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: CodeFailed, Message: err.Error()}
	}
	return Reply{ID: req.ID, Type: req.Type, Error: e}
}

// marshal encodes v, turning a panic inside a MarshalJSON method into an error.
func marshal(v any) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic while encoding: %v", p)
		}
	}()
	return json.Marshal(v)
}

// ErrorReply encodes a failed reply for a message that never reached Handle, such as a
// worker message whose data is not a string.
func ErrorReply(id int64, typ string, e *Error) []byte {
	out, _ := json.Marshal(Reply{ID: id, Type: typ, Error: e})
	return out
}

// ReadyEvent is the event the worker posts once it listens for requests. The page sends
// nothing before it arrives.
func ReadyEvent() []byte {
	out, _ := json.Marshal(Event{Type: "ready", Body: ReadyBody{Protocol: ProtocolVersion}})
	return out
}

// ReadyBody is the body of the ready event.
type ReadyBody struct {
	Protocol int `json:"protocol"`
}

// Decode reads a request body strictly: unknown fields are refused (they are usually a typo on
// the page side), numbers stay exact (json.Number) when decoded into an interface, and an
// absent body decodes as {}.
func Decode(body json.RawMessage, v any) error {
	if len(body) == 0 {
		body = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return BadRequest("invalid body: %v", err)
	}
	if dec.More() {
		return BadRequest("invalid body: trailing data")
	}
	return nil
}

// HelloBody is the reply to hello.
type HelloBody struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Protocol  int    `json:"protocol"`
	// Types lists the message types this worker answers, so the page can feature-detect.
	Types []string `json:"types"`
}

func (b *Bridge) hello(body json.RawMessage) (any, error) {
	if err := Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	return HelloBody{Version: b.info.Version, GoVersion: runtime.Version(), Protocol: ProtocolVersion, Types: b.Types()}, nil
}

// MemoryBody is the reply to debug.memory: the Go runtime's memory figures (runtime.MemStats)
// of the program answering, for the config lab's pool (which replaces a worker whose linear
// memory passed a mark), benchmarks (make bench-page) and bug reports. In the browser,
// SysBytes is about the wasm's linear memory, which never shrinks.
type MemoryBody struct {
	// HeapAllocBytes is the heap in use: what is kept and what is not collected yet.
	HeapAllocBytes uint64 `json:"heapAllocBytes"`
	// HeapSysBytes is the heap obtained from the system (the linear memory the heap spans).
	HeapSysBytes uint64 `json:"heapSysBytes"`
	// SysBytes is all memory the Go runtime obtained from the system.
	SysBytes uint64 `json:"sysBytes"`
	// NumGC counts the completed garbage collections.
	NumGC uint32 `json:"numGC"`
}

func debugMemory(body json.RawMessage) (any, error) {
	if err := Decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return MemoryBody{HeapAllocBytes: ms.HeapAlloc, HeapSysBytes: ms.HeapSys, SysBytes: ms.Sys, NumGC: ms.NumGC}, nil
}

// Version is the running program's version, as the hello reply gives it.
func (b *Bridge) Version() string { return b.info.Version }
