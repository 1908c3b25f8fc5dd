package lab

import (
	"errors"
	"strings"
	"testing"
)

// The lab's inputs come from people's files and pastes: a description file, and the outputs
// of Kafka's tools that the import reads. None may panic; each is accepted or refused with an
// error of the lab's kinds, one line that names what is wrong. `make fuzz` runs these.
//
//	go test ./lab -run '^$' -fuzz FuzzParseDescription -fuzztime 60s

func oneLine(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.TrimSpace(err.Error()) == "" {
		t.Fatalf("an error without words: %T", err)
	}
}

func FuzzParseDescription(f *testing.F) {
	for _, seed := range []string{
		`{"lab": {"preset": "small"}}`,
		`{"lab": {"preset": "kip-load-test", "brokers": 6, "event": {"kind": "disk_swap"}}}`,
		`{"lab": {"topics": [{"name": "t", "partitions": 3}], "config": [{"name": "min.insync.replicas", "value": "2"}]}}`,
		`{"lab": {"seed": -1}}`, `{"lab": 3}`, `{}`, `[]`, `{"lab": {"preset": "x"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDescription(data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an *InputError, got %T %v", err, err)
			}
			oneLine(t, err)
			return
		}
		// What is accepted is valid, and writes a scenario (or says why not).
		if _, err := d.Scenario(); err != nil {
			oneLine(t, err)
		}
	})
}

func FuzzImport(f *testing.F) {
	f.Add("Topic: t\tTopicId: x\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: min.insync.replicas=1\n\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\n\tTopic: t\tPartition: 1\tLeader: 2\tReplicas: 2,1\tIsr: 2,1\n",
		"Querying brokers for log directories information\n{\"version\":1,\"brokers\":[{\"broker\":1,\"logDirs\":[{\"logDir\":\"/d\",\"error\":null,\"partitions\":[{\"partition\":\"t-0\",\"size\":100,\"offsetLag\":0,\"isFuture\":false}]}]}]}\n",
		"ClusterId: x\nLeaderId: 3000\nCurrentVoters: [{\"id\": 3000}, {\"id\": 3001}, {\"id\": 3002}]\n",
		"kafka_server_brokertopicmetrics_bytesinpersec{topic=\"t\"} 1e6\n")
	f.Add("", "", "", "")
	f.Add("Topic: t\tPartitionCount: 99999999999\n", "{", "LeaderId: -1", "t,abc")
	f.Fuzz(func(t *testing.T, topics, logDirs, quorum, rates string) {
		base, err := Preset(PresetSmall)
		if err != nil {
			t.Fatal(err)
		}
		// Each parser alone, then the import that combines them.
		_, _, err = ParseTopicsDescribe(topics)
		oneLine(t, err)
		_, _, err = ParseLogDirs(logDirs)
		oneLine(t, err)
		_, _, err = ParseQuorum(quorum)
		oneLine(t, err)
		_, _, err = ParseRates(rates)
		oneLine(t, err)
		_, err = Import(Inputs{Topics: topics, LogDirs: logDirs, Quorum: quorum, Rates: rates}, base)
		oneLine(t, err)
	})
}
