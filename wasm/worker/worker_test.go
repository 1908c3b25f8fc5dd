//go:build js && wasm

package worker

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/wasm/bridge"
)

// fakeScope is a plain JavaScript object standing in for a worker's global scope: Node has no
// Web Worker, but Serve only needs onmessage and postMessage.
type fakeScope struct {
	t      *testing.T
	value  safejs.Value
	posted chan string
	// attachments receives, for each message posted as {text, data}, the attachment's bytes
	// and the length of the transfer list.
	attachments chan attachment
}

type attachment struct {
	data      []byte
	transfers int
}

func newFakeScope(t *testing.T, withPost bool) *fakeScope {
	t.Helper()
	object, err := safejs.Global().Get("Object")
	require.NoError(t, err)
	scope, err := object.New()
	require.NoError(t, err)
	f := &fakeScope{t: t, value: scope, posted: make(chan string, 64), attachments: make(chan attachment, 64)}
	if withPost {
		fn, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
			msg := args[0]
			if msg.Type() == safejs.TypeObject {
				f.attachments <- readAttachment(args)
				if msg, err = msg.Get("text"); err != nil {
					f.posted <- "NO TEXT: " + err.Error()
					return nil
				}
			}
			s, err := msg.String()
			if err != nil {
				s = "NOT A STRING: " + err.Error()
			}
			f.posted <- s
			return nil
		})
		require.NoError(t, err)
		t.Cleanup(fn.Release)
		require.NoError(t, scope.Set("postMessage", fn.Value()))
	}
	return f
}

// readAttachment copies the data ArrayBuffer of a {text, data} message out of JavaScript.
func readAttachment(args []safejs.Value) attachment {
	var a attachment
	buf, err := args[0].Get("data")
	if err != nil {
		return a
	}
	u8, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return a
	}
	view, err := u8.New(buf)
	if err != nil {
		return a
	}
	n, _ := view.Length()
	a.data = make([]byte, n)
	_, _ = safejs.CopyBytesToGo(a.data, view)
	if len(args) > 1 {
		a.transfers, _ = args[1].Length()
	}
	return a
}

// send delivers a MessageEvent-like object to the scope's onmessage, as the browser would.
func (f *fakeScope) send(data any) {
	f.t.Helper()
	object, err := safejs.Global().Get("Object")
	require.NoError(f.t, err)
	ev, err := object.New()
	require.NoError(f.t, err)
	require.NoError(f.t, ev.Set("data", data))
	onmessage, err := f.value.Get("onmessage")
	require.NoError(f.t, err)
	_, err = onmessage.Invoke(ev)
	require.NoError(f.t, err)
}

// next waits for the next posted message and decodes it.
func (f *fakeScope) next() map[string]any {
	f.t.Helper()
	select {
	case s := <-f.posted:
		var m map[string]any
		require.NoError(f.t, json.Unmarshal([]byte(s), &m), "posted message must be JSON: %s", s)
		return m
	case <-time.After(5 * time.Second):
		f.t.Fatal("no message posted within 5s")
		return nil
	}
}

func serve(t *testing.T, b *bridge.Bridge) *fakeScope {
	t.Helper()
	f := newFakeScope(t, true)
	s, err := Serve(f.value, b)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	ready := f.next()
	assert.Equal(t, "ready", ready["type"], "the first message is the ready event")
	assert.Equal(t, map[string]any{"protocol": float64(bridge.ProtocolVersion)}, ready["body"])
	return f
}

func TestRequestsGetReplies(t *testing.T) {
	f := serve(t, bridge.New(bridge.Info{Version: "test"}))

	f.send(`{"id":1,"type":"hello"}`)
	r := f.next()
	assert.Equal(t, float64(1), r["id"])
	assert.Equal(t, true, r["ok"])
	assert.Equal(t, "test", r["body"].(map[string]any)["version"])

	f.send(`{"id":2,"type":"config.validate","body":{"name":"leader.imbalance.election.wait.for.sync.threshold.percent","value":105}}`)
	r = f.next()
	body := r["body"].(map[string]any)
	assert.Equal(t, false, body["valid"])
	assert.Equal(t, "Value must be no more than 100", body["reason"])
}

func TestHandlerPanicIsAnErrorReplyAndTheWorkerLivesOn(t *testing.T) {
	b := bridge.New(bridge.Info{})
	b.Register("test.panic", func(json.RawMessage) (any, error) {
		var p *struct{ X int }
		return p.X, nil // nil dereference: a real runtime panic under wasm
	})
	f := serve(t, b)
	f.send(`{"id":9,"type":"test.panic"}`)
	r := f.next()
	assert.Equal(t, float64(9), r["id"])
	assert.Equal(t, false, r["ok"])
	e := r["error"].(map[string]any)
	assert.Equal(t, bridge.CodeInternal, e["code"])
	assert.Contains(t, e["message"], "nil pointer dereference")

	f.send(`{"id":10,"type":"hello"}`)
	assert.Equal(t, true, f.next()["ok"], "the worker still answers after a panic")
}

func TestBinaryAttachmentsArePostedAsTransferredBuffers(t *testing.T) {
	b := bridge.New(bridge.Info{})
	payload := []byte{1, 2, 3, 250, 0, 7}
	b.Register("test.binary", func(json.RawMessage) (any, error) {
		return bridge.Attached{Body: map[string]int{"n": len(payload)}, Data: payload}, nil
	})
	f := serve(t, b)
	f.send(`{"id":5,"type":"test.binary"}`)
	r := f.next()
	assert.Equal(t, true, r["ok"])
	assert.Equal(t, float64(len(payload)), r["data"], "the envelope announces the attachment's length")
	assert.Equal(t, map[string]any{"n": float64(6)}, r["body"])
	select {
	case a := <-f.attachments:
		assert.Equal(t, payload, a.data)
		assert.Equal(t, 1, a.transfers, "the buffer is transferred, not copied")
	case <-time.After(5 * time.Second):
		t.Fatal("no attachment posted")
	}

	// A real frame goes the same way.
	f.send(`{"id":6,"type":"sim.start","body":{"brokers":3,"partitions":6}}`)
	require.Equal(t, true, f.next()["ok"])
	f.send(`{"id":7,"type":"sim.advance","body":{"ms":1000}}`)
	r = f.next()
	require.Equal(t, true, r["ok"], "%v", r["error"])
	a := <-f.attachments
	assert.Len(t, a.data, int(r["data"].(float64)))
	assert.Equal(t, float64(1000), r["body"].(map[string]any)["timeMs"])
}

// A request posted as {text, data} reaches a DataHandler with its bytes; a handler that takes
// none refuses them, and data that is not a Uint8Array is a bad request.
func TestRequestAttachmentsReachTheHandler(t *testing.T) {
	b := bridge.New(bridge.Info{})
	b.RegisterData("test.bytes", func(_ json.RawMessage, data []byte) (any, error) {
		return map[string]any{"text": string(data)}, nil
	})
	f := serve(t, b)
	object, err := safejs.Global().Get("Object")
	require.NoError(t, err)
	u8, err := safejs.Global().Get("Uint8Array")
	require.NoError(t, err)
	attached := func(text string, data []byte, typed bool) safejs.Value {
		msg, err := object.New()
		require.NoError(t, err)
		arr, err := u8.New(len(data))
		require.NoError(t, err)
		_, err = safejs.CopyBytesToJS(arr, data)
		require.NoError(t, err)
		require.NoError(t, msg.Set("text", text))
		if typed {
			require.NoError(t, msg.Set("data", arr))
		} else {
			buf, err := arr.Get("buffer")
			require.NoError(t, err)
			require.NoError(t, msg.Set("data", buf))
		}
		return msg
	}
	text := "Topic: a\tPartitionCount: 1 — ünïcode"
	f.send(attached(`{"id":1,"type":"test.bytes","data":`+fmt.Sprint(len(text))+`}`, []byte(text), true))
	r := f.next()
	require.Equal(t, true, r["ok"], "%v", r["error"])
	assert.Equal(t, text, r["body"].(map[string]any)["text"])

	f.send(attached(`{"id":2,"type":"hello","data":3}`, []byte("abc"), true))
	e := f.next()["error"].(map[string]any)
	assert.Equal(t, bridge.CodeBadRequest, e["code"])
	assert.Contains(t, e["message"], "takes no attachment")

	f.send(attached(`{"id":3,"type":"test.bytes","data":5}`, []byte("abc"), true))
	assert.Contains(t, f.next()["error"].(map[string]any)["message"], "data is not the length of the request's attachment")

	f.send(attached(`{"id":4,"type":"test.bytes","data":3}`, []byte("abc"), false))
	e = f.next()["error"].(map[string]any)
	assert.Equal(t, bridge.CodeBadRequest, e["code"])
	assert.Contains(t, e["message"], "{text, data}: a JSON string and a Uint8Array")
}

func TestNonStringDataIsABadRequest(t *testing.T) {
	f := serve(t, bridge.New(bridge.Info{}))
	f.send(42)
	r := f.next()
	assert.Equal(t, false, r["ok"])
	e := r["error"].(map[string]any)
	assert.Equal(t, bridge.CodeBadRequest, e["code"])
	assert.Contains(t, e["message"], "must be a JSON string, got a number")

	f.send(`not json`)
	assert.Equal(t, bridge.CodeBadRequest, f.next()["error"].(map[string]any)["code"])
}

func TestRepliesKeepArrivalOrder(t *testing.T) {
	f := serve(t, bridge.New(bridge.Info{}))
	const n = 40
	for i := 1; i <= n; i++ {
		f.send(fmt.Sprintf(`{"id":%d,"type":"hello"}`, i))
	}
	for i := 1; i <= n; i++ {
		assert.Equal(t, float64(i), f.next()["id"])
	}
}

func TestServeFailsWithoutPostMessage(t *testing.T) {
	f := newFakeScope(t, false)
	_, err := Serve(f.value, bridge.New(bridge.Info{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "postMessage")
	onmessage, err := f.value.Get("onmessage")
	require.NoError(t, err)
	assert.True(t, onmessage.IsNull() || onmessage.IsUndefined(), "a failed Serve leaves no handler behind")
}

func TestCloseRemovesTheHandler(t *testing.T) {
	f := newFakeScope(t, true)
	s, err := Serve(f.value, bridge.New(bridge.Info{}))
	require.NoError(t, err)
	f.next() // ready
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	onmessage, err := f.value.Get("onmessage")
	require.NoError(t, err)
	assert.True(t, onmessage.IsNull())
}
