package controller

import (
	"slices"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/metadata"
)

// session is the controller's view of one broker's heartbeats (BrokerHeartbeatManager).
type session struct {
	lastContactMs int64
	// tracked brokers are checked for session expiry by maybeFenceStaleBroker.
	tracked        bool
	metadataOffset int64
	// controlledShutdownOffset is the end offset of the batch that put the broker in
	// controlled shutdown, or -1.
	controlledShutdownOffset int64
}

func (c *Controller) session(id int32) *session {
	s := c.sessions[id]
	if s == nil {
		s = &session{controlledShutdownOffset: -1, metadataOffset: -1}
		c.sessions[id] = s
	}
	return s
}

// isActive is Kafka's ClusterControlManager.isActive: registered, unfenced and not in
// controlled shutdown.
func (c *Controller) isActive(id int32) bool {
	b := c.image.Broker(id)
	return b != nil && b.Registered && !b.Fenced && !b.InControlledShutdown
}

// safeLeader reports whether the LeaderAcceptor of a PREFERRED election (changeBuilder.acceptable
// with no broker to add or remove) accepts broker id for every partition it holds: it is active
// and none of its log directories is offline.
func (c *Controller) safeLeader(id int32) bool {
	return c.isActive(id) && c.image.DirsOnline(id)
}

// RegisterRequest is a BrokerRegistrationRequest.
type RegisterRequest struct {
	BrokerID      int32
	IncarnationID string
	LogDirs       []string
	// PreviousBrokerEpoch comes from the broker's clean-shutdown file; -1 when there is none
	// (a hard stop or a replaced disk), which marks the restart unclean.
	PreviousBrokerEpoch int64
}

// RegisterBroker registers a broker incarnation at nowMs and returns its broker epoch.
func (c *Controller) RegisterBroker(req RegisterRequest, nowMs int64) (int64, error) {
	if req.BrokerID < 0 {
		return 0, apiErr(InvalidRequest, "Broker id %d is negative", req.BrokerID)
	}
	if req.IncarnationID == "" {
		return 0, apiErr(InvalidRequest, "Broker %d registered with an empty incarnation id", req.BrokerID)
	}
	old := c.image.Broker(req.BrokerID)
	s := c.session(req.BrokerID)
	defer c.afterWrite(nowMs)
	if old != nil && old.Registered && old.IncarnationID == req.IncarnationID {
		// Amending the registration of the same incarnation keeps its epoch and flags.
		c.append(&metadata.RegisterBrokerRecord{BrokerID: req.BrokerID, IncarnationID: req.IncarnationID,
			BrokerEpoch: old.Epoch, LogDirs: req.LogDirs, Fenced: old.Fenced, InControlledShutdown: old.InControlledShutdown})
		s.lastContactMs, s.tracked = nowMs, true
		return old.Epoch, nil
	}
	if old != nil && old.Registered && s.tracked && !c.expired(s, nowMs) {
		return 0, apiErr(DuplicateBrokerRegistration, "Another broker is registered with that broker id: broker %d's session is still alive (last heartbeat %d ms ago, broker.session.timeout.ms=%d)",
			req.BrokerID, nowMs-s.lastContactMs, c.cfgInt(config.BrokerSessionTimeoutMs))
	}
	epoch := c.log.NextOffset() // the offset where the registration batch starts
	if old != nil && old.Registered {
		clean := req.PreviousBrokerEpoch >= 0 && req.PreviousBrokerEpoch == old.Epoch
		c.handleBrokerShutdown(req.BrokerID, clean)
	}
	c.append(&metadata.RegisterBrokerRecord{BrokerID: req.BrokerID, IncarnationID: req.IncarnationID,
		BrokerEpoch: epoch, LogDirs: req.LogDirs, Fenced: true})
	*s = session{lastContactMs: nowMs, tracked: true, metadataOffset: -1, controlledShutdownOffset: -1}
	c.balancer.Reset(req.BrokerID)
	return epoch, nil
}

// handleBrokerShutdown cleans up after the previous incarnation of a re-registering broker: an
// unclean restart under ELR removes it from the ISR and the ELR (it may have lost data);
// otherwise it is treated like a fence.
func (c *Controller) handleBrokerShutdown(id int32, clean bool) {
	if c.image.ElrEnabled() && !clean {
		var touched []int32
		for _, p := range c.image.ReplicaPartitions(id) {
			part := &c.image.Partitions[p]
			if part.InIsr(id) || part.InElr(id) {
				touched = append(touched, p)
			}
		}
		c.generateLeaderAndIsrUpdates(id, -1, touched, []int32{id})
		return
	}
	c.removeFromIsrs(id)
}

func (c *Controller) expired(s *session, nowMs int64) bool {
	return s.lastContactMs+c.cfgInt(config.BrokerSessionTimeoutMs) < nowMs
}

// HeartbeatRequest is a BrokerHeartbeatRequest.
type HeartbeatRequest struct {
	BrokerID              int32
	BrokerEpoch           int64
	CurrentMetadataOffset int64
	// WantFence is true until the broker has recovered its logs and is ready to serve.
	WantFence    bool
	WantShutDown bool
	// OfflineLogDirs lists log directories that failed.
	OfflineLogDirs []string
}

// HeartbeatReply is a BrokerHeartbeatResponse.
type HeartbeatReply struct {
	IsCaughtUp           bool
	IsFenced             bool
	InControlledShutdown bool
	ShouldShutDown       bool
}

// Broker states of BrokerHeartbeatManager.calculateNextBrokerState.
type brokerState int

const (
	stateFenced brokerState = iota
	stateUnfenced
	stateControlledShutdown
	stateShutdownNow
)

// Heartbeat processes a broker heartbeat at nowMs.
func (c *Controller) Heartbeat(req HeartbeatRequest, nowMs int64) (HeartbeatReply, error) {
	b := c.image.Broker(req.BrokerID)
	if b == nil || !b.Registered {
		return HeartbeatReply{IsFenced: true}, apiErr(BrokerIDNotRegistered, "Broker %d is not registered", req.BrokerID)
	}
	if b.Epoch != req.BrokerEpoch {
		return HeartbeatReply{IsFenced: true}, apiErr(StaleBrokerEpoch, "Expected broker epoch %d, but got broker epoch %d", b.Epoch, req.BrokerEpoch)
	}
	defer c.afterWrite(nowMs)
	s := c.session(req.BrokerID)
	s.lastContactMs, s.tracked = nowMs, true
	s.metadataOffset = req.CurrentMetadataOffset
	if len(req.OfflineLogDirs) > 0 {
		c.handleDirectoriesOffline(req.BrokerID, req.OfflineLogDirs)
	}
	caughtUp := req.CurrentMetadataOffset >= b.RegisterOffset
	cur := stateUnfenced
	switch {
	case b.Fenced:
		cur = stateFenced
	case b.InControlledShutdown:
		cur = stateControlledShutdown
	}
	next := c.nextBrokerState(cur, req, caughtUp)
	switch {
	case next == stateUnfenced && cur == stateFenced:
		c.handleBrokerUnfenced(req.BrokerID)
	case next == stateFenced && cur != stateFenced, next == stateShutdownNow:
		if !c.image.Broker(req.BrokerID).Fenced {
			c.handleBrokerFenced(req.BrokerID)
		}
		s.tracked = next != stateShutdownNow
	case next == stateControlledShutdown && cur == stateUnfenced:
		c.handleBrokerInControlledShutdown(req.BrokerID)
	}
	return HeartbeatReply{
		IsCaughtUp:           caughtUp,
		IsFenced:             next == stateFenced || next == stateShutdownNow,
		InControlledShutdown: next == stateControlledShutdown,
		ShouldShutDown:       next == stateShutdownNow,
	}, nil
}

// nextBrokerState is BrokerHeartbeatManager.calculateNextBrokerState.
func (c *Controller) nextBrokerState(cur brokerState, req HeartbeatRequest, caughtUp bool) brokerState {
	switch cur {
	case stateFenced:
		if req.WantShutDown {
			return stateShutdownNow
		}
		if !req.WantFence && caughtUp {
			return stateUnfenced
		}
		return stateFenced
	case stateUnfenced:
		if req.WantFence {
			if req.WantShutDown {
				return stateShutdownNow
			}
			return stateFenced
		}
		if req.WantShutDown {
			if c.hasLeaderships(req.BrokerID) {
				return stateControlledShutdown
			}
			return stateShutdownNow
		}
		return stateUnfenced
	default: // controlled shutdown
		if c.hasLeaderships(req.BrokerID) {
			return stateControlledShutdown
		}
		if c.session(req.BrokerID).controlledShutdownOffset <= c.lowestActiveOffset() {
			return stateShutdownNow
		}
		return stateControlledShutdown
	}
}

// hasLeaderships reports whether broker id still leads a partition where it is a replica. The
// image keeps the count: a broker in controlled shutdown asks on every heartbeat, and reading
// its partitions each time cost a cache miss per replica once none was left.
func (c *Controller) hasLeaderships(id int32) bool { return c.image.LeaderCount(id) > 0 }

// lowestActiveOffset is the lowest metadata offset any active broker has reported.
func (c *Controller) lowestActiveOffset() int64 {
	low := int64(1<<63 - 1)
	for _, id := range c.image.BrokerIDs() {
		if c.isActive(id) {
			low = min(low, c.session(id).metadataOffset)
		}
	}
	return low
}

// handleBrokerFenced moves a broker's leaderships away and takes it out of every ISR, then
// writes the FENCE record.
func (c *Controller) handleBrokerFenced(id int32) {
	c.removeFromIsrs(id)
	b := c.image.Broker(id)
	c.append(&metadata.BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: b.Epoch, Fenced: metadata.FenceFence})
}

// handleBrokerUnfenced writes the UNFENCE record, then elects leaders for leaderless
// partitions, where the broker is acceptable even though its registration is still fenced. It
// does not add the broker back to any ISR: the partition leaders do that.
func (c *Controller) handleBrokerUnfenced(id int32) {
	b := c.image.Broker(id)
	c.append(&metadata.BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: b.Epoch, Fenced: metadata.FenceUnfence})
	leaderless := slices.Clone(c.image.Leaderless())
	slices.Sort(leaderless)
	c.generateLeaderAndIsrUpdates(-1, id, leaderless, nil)
}

// handleBrokerInControlledShutdown marks the broker and moves its leaderships and ISR
// memberships away; the batch's end offset must reach every active broker before release.
func (c *Controller) handleBrokerInControlledShutdown(id int32) {
	b := c.image.Broker(id)
	if !b.InControlledShutdown {
		c.append(&metadata.BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: b.Epoch, InControlledShutdown: 1})
	}
	c.removeFromIsrs(id)
	if s := c.session(id); s.controlledShutdownOffset < 0 {
		s.controlledShutdownOffset = c.log.NextOffset() - 1
	}
}

// handleDirectoriesOffline treats the partitions in newly offline directories as if the
// broker were fenced for them, then records the directories still online.
func (c *Controller) handleDirectoriesOffline(id int32, offline []string) {
	b := c.image.Broker(id)
	var online []string
	newlyOffline := false
	for _, d := range b.LogDirs {
		if slices.Contains(offline, d) {
			newlyOffline = true
		} else {
			online = append(online, d)
		}
	}
	if !newlyOffline {
		return
	}
	// Each replica's directory is fixed for the incarnation (Image.ReplicaDir): a broker with a
	// single log directory loses every replica when it goes offline.
	var touched []int32
	for _, p := range c.image.ReplicaPartitions(id) {
		if slices.Contains(offline, c.image.ReplicaDir(id, p)) && c.image.Partitions[p].InIsr(id) {
			touched = append(touched, p)
		}
	}
	c.generateLeaderAndIsrUpdates(id, -1, touched, nil)
	if online == nil {
		online = []string{}
	}
	c.append(&metadata.BrokerRegistrationChangeRecord{BrokerID: id, BrokerEpoch: b.Epoch, LogDirs: online})
}

// maybeFenceOneStaleBroker fences at most one broker whose session expired (the one heard from
// longest ago) and reports whether it did any work, so the next one is handled 10 ms later.
func (c *Controller) maybeFenceOneStaleBroker(nowMs int64) bool {
	var stale int32 = -1
	for _, id := range c.image.BrokerIDs() {
		s := c.sessions[id]
		if s == nil || !s.tracked || !c.expired(s, nowMs) {
			continue
		}
		if stale < 0 || s.lastContactMs < c.sessions[stale].lastContactMs {
			stale = id
		}
	}
	if stale < 0 {
		return false
	}
	c.sessions[stale].tracked = false
	if b := c.image.Broker(stale); b.Registered && !b.Fenced {
		c.handleBrokerFenced(stale)
	}
	return true
}

// LastContact is when the controller last heard from broker id (a registration or a
// heartbeat), and whether it tracks the broker's session at all. Observers read it to say why
// a session expired.
func (c *Controller) LastContact(id int32) (int64, bool) {
	s := c.sessions[id]
	if s == nil {
		return 0, false
	}
	return s.lastContactMs, true
}

// ExpireSession makes a broker's session expire at nowMs and fences it at once, as the
// maybeFenceStaleBroker task would on its next run. It is how a scenario says "fence".
func (c *Controller) ExpireSession(id int32, nowMs int64) error {
	b := c.image.Broker(id)
	if b == nil || !b.Registered {
		return apiErr(BrokerIDNotRegistered, "Broker %d is not registered", id)
	}
	defer c.afterWrite(nowMs)
	s := c.session(id)
	s.tracked = false
	if !b.Fenced {
		c.handleBrokerFenced(id)
	}
	return nil
}

// SessionAlive reports whether the broker's current session has not expired at nowMs.
func (c *Controller) SessionAlive(id int32, nowMs int64) bool {
	s := c.sessions[id]
	return s != nil && s.tracked && !c.expired(s, nowMs)
}

// InControlledShutdownPending reports whether the broker is in controlled shutdown and waiting
// to be released.
func (c *Controller) InControlledShutdownPending(id int32) bool {
	b := c.image.Broker(id)
	return b != nil && b.Registered && !b.Fenced && b.InControlledShutdown
}

// String describes a broker state for messages.
func (s brokerState) String() string {
	return [...]string{"FENCED", "UNFENCED", "CONTROLLED_SHUTDOWN", "SHUTDOWN_NOW"}[s]
}
