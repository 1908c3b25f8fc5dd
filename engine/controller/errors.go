package controller

import (
	"fmt"
	"strconv"
	"strings"
)

// ErrorCode is a Kafka protocol error, named as Kafka's Errors enum names it.
type ErrorCode string

// The error codes the controller returns.
const (
	None                        ErrorCode = "NONE"
	InvalidRequest              ErrorCode = "INVALID_REQUEST"
	NotController               ErrorCode = "NOT_CONTROLLER"
	FencedLeaderEpoch           ErrorCode = "FENCED_LEADER_EPOCH"
	InvalidUpdateVersion        ErrorCode = "INVALID_UPDATE_VERSION"
	IneligibleReplica           ErrorCode = "INELIGIBLE_REPLICA"
	StaleBrokerEpoch            ErrorCode = "STALE_BROKER_EPOCH"
	BrokerIDNotRegistered       ErrorCode = "BROKER_ID_NOT_REGISTERED"
	DuplicateBrokerRegistration ErrorCode = "DUPLICATE_BROKER_REGISTRATION"
	UnknownTopicOrPartition     ErrorCode = "UNKNOWN_TOPIC_OR_PARTITION"
	ElectionNotNeeded           ErrorCode = "ELECTION_NOT_NEEDED"
	PreferredLeaderNotAvailable ErrorCode = "PREFERRED_LEADER_NOT_AVAILABLE"
	EligibleLeadersNotAvailable ErrorCode = "ELIGIBLE_LEADERS_NOT_AVAILABLE"
	TopicAlreadyExists          ErrorCode = "TOPIC_ALREADY_EXISTS"
	InvalidTopic                ErrorCode = "INVALID_TOPIC_EXCEPTION"
	InvalidPartitions           ErrorCode = "INVALID_PARTITIONS"
	InvalidReplicationFactor    ErrorCode = "INVALID_REPLICATION_FACTOR"
	InvalidReplicaAssignment    ErrorCode = "INVALID_REPLICA_ASSIGNMENT"
	InvalidConfig               ErrorCode = "INVALID_CONFIG"
)

// APIError is an error a request gets back: Kafka's code and a message for people.
type APIError struct {
	Code    ErrorCode
	Message string
}

// Error is the code and the message, or the code alone when there is no message.
func (e *APIError) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

func apiErr(code ErrorCode, format string, args ...any) *APIError {
	return &APIError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// list writes broker ids as Java prints a List<Integer>, "[1, 2, 3]", the form Kafka's messages use.
func list(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
