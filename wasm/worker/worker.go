//go:build js && wasm

// Package worker connects a bridge.Bridge to a Web Worker: requests arrive through the worker's
// onmessage, replies leave through postMessage. It is the thin js&&wasm layer of wasm/ and,
// with the programs in wasm/cmd, the only code that touches JavaScript, always through safejs so
// that a JavaScript exception is a Go error rather than a panic.
//
// Messages are JSON text strings in both directions (see web/PROTOCOL.md), except a reply
// with a binary attachment (a frame, or the cluster a rehearsal imported), which is posted as
// {text, data} with data an ArrayBuffer transferred to the page rather than copied, and a
// request with one (the texts a rehearsal imports, or such a cluster), which arrives as
// {text, data} with data a Uint8Array. The onmessage
// callback only queues the text and returns: the bridge runs on a separate goroutine, in
// arrival order, because a js.FuncOf callback must not block (syscall/js documents that a
// blocking callback deadlocks the event loop) and later messages such as a long simulation
// run may take a while.
package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/hack-pad/safejs"

	"github.com/kraftlab/kraftlab/wasm/bridge"
)

// Server is a running connection between one scope and one bridge.
type Server struct {
	scope  safejs.Value
	bridge *bridge.Bridge
	fn     safejs.Func

	mu     sync.Mutex
	queue  []message
	closed bool
	wake   chan struct{} // capacity 1: "the queue may be non-empty"
	done   chan struct{} // closed when the dispatch goroutine has returned
}

// Main is a wasm program's whole main: it serves b in this worker and then keeps the program
// alive, since from then on Go only runs inside onmessage callbacks. If serving cannot start,
// it prints why, prefixed with program, and exits: worker.ts then reports the failure to the
// page with that line in the report.
func Main(program string, b *bridge.Bridge) {
	if _, err := Serve(safejs.Global(), b); err != nil {
		println(program+":", err.Error())
		os.Exit(1)
	}
	select {}
}

// Serve installs b as scope's onmessage handler, starts dispatching, and posts the ready event.
// scope is the worker's global scope (safejs.Global() inside a Web Worker); in tests it is any
// object with a postMessage method.
func Serve(scope safejs.Value, b *bridge.Bridge) (*Server, error) {
	s := &Server{scope: scope, bridge: b, wake: make(chan struct{}, 1), done: make(chan struct{})}
	fn, err := safejs.FuncOf(s.onMessage)
	if err != nil {
		return nil, fmt.Errorf("worker: wrapping onmessage: %w", err)
	}
	s.fn = fn
	if err := scope.Set("onmessage", fn.Value()); err != nil {
		fn.Release()
		return nil, fmt.Errorf("worker: setting onmessage: %w", err)
	}
	// Posting ready is also the check that postMessage works at all: better to fail here,
	// where main can exit with a message, than to drop every reply later.
	if err := s.post(bridge.ReadyEvent()); err != nil {
		_ = scope.Set("onmessage", nil)
		fn.Release()
		return nil, err
	}
	go s.dispatch()
	return s, nil
}

// onMessage is the JavaScript onmessage callback. It must return promptly and must never let a
// panic escape: an unrecovered panic in a callback ends the Go program, which would leave the
// page with a dead worker.
func (s *Server) onMessage(_ safejs.Value, args []safejs.Value) any {
	defer func() {
		if p := recover(); p != nil {
			s.postOrLog(bridge.ErrorReply(0, "", &bridge.Error{Code: bridge.CodeInternal,
				Message: fmt.Sprintf("onmessage panicked: %v", p)}))
		}
	}()
	m, err := readMessage(args)
	if err != nil {
		s.postOrLog(bridge.ErrorReply(0, "", bridge.BadRequest("%v", err)))
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.queue = append(s.queue, m)
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	return nil
}

// message is a request as it arrived: its JSON text and its attachment (nil: none).
type message struct {
	text string
	data []byte
}

func readMessage(args []safejs.Value) (message, error) {
	if len(args) == 0 {
		return message{}, errors.New("onmessage called without an event")
	}
	data, err := args[0].Get("data")
	if err != nil {
		return message{}, fmt.Errorf("reading event.data: %w", err)
	}
	if data.Type() == safejs.TypeObject {
		return attachedMessage(data)
	}
	if data.Type() != safejs.TypeString {
		return message{}, fmt.Errorf("message data must be a JSON string, got a %s", data.Type())
	}
	text, err := data.String()
	return message{text: text}, err
}

// attachedMessage reads a request posted as {text, data}: the bytes are copied into Go once
// (CopyBytesToGo, a memory copy), where a JSON string of them would be decoded twice.
func attachedMessage(v safejs.Value) (m message, err error) {
	text, err := v.Get("text")
	if err == nil {
		m.text, err = text.String()
	}
	var arr safejs.Value
	if err == nil {
		arr, err = v.Get("data")
	}
	n := 0
	if err == nil {
		n, err = arr.Length()
	}
	if err == nil {
		m.data = make([]byte, n)
		_, err = safejs.CopyBytesToGo(m.data, arr)
	}
	if err != nil {
		return message{}, errors.New("message object must be {text, data}: a JSON string and a Uint8Array")
	}
	return m, nil
}

// dispatch answers queued messages one at a time, in arrival order.
func (s *Server) dispatch() {
	defer close(s.done)
	for range s.wake {
		for {
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				return
			}
			if len(s.queue) == 0 {
				s.mu.Unlock()
				break
			}
			msg := s.queue[0]
			s.queue[0] = message{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			// HandleData never panics; it turns handler panics into error replies.
			reply, data := s.bridge.HandleData([]byte(msg.text), msg.data)
			if data != nil {
				if err := s.postWithData(reply, data); err != nil {
					println("kraftlab worker:", err.Error())
				}
				continue
			}
			s.postOrLog(reply)
		}
	}
}

func (s *Server) post(msg []byte) error {
	if _, err := s.scope.Call("postMessage", string(msg)); err != nil {
		return fmt.Errorf("worker: postMessage: %w", err)
	}
	return nil
}

// postWithData posts a reply and its binary attachment as {text, data}. The bytes are copied
// once into a fresh ArrayBuffer (CopyBytesToJS runs at tens of GB/s) whose ownership is then
// transferred to the page, so the structured clone copies nothing more. If any step fails,
// the page still gets an answer: the reply turned into an internal error.
func (s *Server) postWithData(reply, data []byte) error {
	msg, err := s.dataMessage(reply, data)
	if err == nil {
		var buf safejs.Value
		if buf, err = msg.Get("data"); err == nil {
			_, err = s.scope.Call("postMessage", msg, []any{buf})
		}
	}
	if err != nil {
		var env bridge.Reply
		_ = json.Unmarshal(reply, &env)
		s.postOrLog(bridge.ErrorReply(env.ID, env.Type, &bridge.Error{Code: bridge.CodeInternal,
			Message: "cannot post the reply's binary attachment: " + err.Error()}))
	}
	return err
}

func (s *Server) dataMessage(reply, data []byte) (safejs.Value, error) {
	global := safejs.Global()
	u8, err := global.Get("Uint8Array")
	if err != nil {
		return safejs.Value{}, err
	}
	arr, err := u8.New(len(data))
	if err != nil {
		return safejs.Value{}, err
	}
	if _, err := safejs.CopyBytesToJS(arr, data); err != nil {
		return safejs.Value{}, err
	}
	buf, err := arr.Get("buffer")
	if err != nil {
		return safejs.Value{}, err
	}
	object, err := global.Get("Object")
	if err != nil {
		return safejs.Value{}, err
	}
	msg, err := object.New()
	if err != nil {
		return safejs.Value{}, err
	}
	if err := msg.Set("text", string(reply)); err != nil {
		return safejs.Value{}, err
	}
	if err := msg.Set("data", buf); err != nil {
		return safejs.Value{}, err
	}
	return msg, nil
}

// postOrLog posts msg; if even that fails there is no one left to tell but the console.
func (s *Server) postOrLog(msg []byte) {
	if err := s.post(msg); err != nil {
		println("kraftlab worker:", err.Error())
	}
}

// Close stops listening: onmessage is cleared, queued messages are dropped and the dispatch
// goroutine ends. It is for tests and for a future restart; a worker normally just ends.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.queue = nil
	close(s.wake) // under mu, so onMessage never sends on a closed channel
	s.mu.Unlock()
	err := s.scope.Set("onmessage", nil)
	<-s.done
	s.fn.Release()
	return err
}
