package store

import (
	"testing"
)

// onPostgres switches openTemp to PostgreSQL while the contract suite runs
// there (store tests do not run in parallel).
var onPostgres bool

// contract is the store's contract suite: the tests every backend passes.
// They run on SQLite as plain tests, and again on PostgreSQL under
// TestContractOnPostgres when LOOP_TEST_PG names a server.
var contract = []struct {
	name string
	fn   func(*testing.T)
}{
	{"UpdateRoundTrip", TestUpdateRoundTrip},
	{"UpdateReplacesNodeRows", TestUpdateReplacesNodeRows},
	{"UpdateNilSavesNothing", TestUpdateNilSavesNothing},
	{"UpdateCallsFnOnce", TestUpdateCallsFnOnce},
	{"UpdateErrorRollsBack", TestUpdateErrorRollsBack},
	{"UpdatePanicRollsBack", TestUpdatePanicRollsBack},
	{"UpdateValidation", TestUpdateValidation},
	{"KeyValidation", TestKeyValidation},
	{"ListSortedAndScopedToRepo", TestListSortedAndScopedToRepo},
	{"UpdateCancelledContext", TestUpdateCancelledContext},
	{"StateBlobReadsWhatUpdateSaved", TestStateBlobReadsWhatUpdateSaved},
	{"HoldSeesTheCommittedItemAndWritesNothing", TestHoldSeesTheCommittedItemAndWritesNothing},
	{"EventsAppendOrdered", TestEventsAppendOrdered},
	{"EventsAreAppendOnly", TestEventsAreAppendOnly},
	{"EventsValidation", TestEventsValidation},
	{"EventsNamedSpanItemsInAppendOrder", TestEventsNamedSpanItemsInAppendOrder},
	{"ListAllSpansRepositories", TestListAllSpansRepositories},
	{"StatesReadARepositoryInOneQuery", TestStatesReadARepositoryInOneQuery},
	{"ChangeMarkMoves", TestChangeMarkMoves},
	{"ADeliveryIsRecordedOnce", TestADeliveryIsRecordedOnce},
	{"ADeliveryWithoutAnIDIsRefused", TestADeliveryWithoutAnIDIsRefused},
	{"SessionRecordLifecycle", TestSessionRecordLifecycle},
	{"SessionRecordsRefuseBadInput", TestSessionRecordsRefuseBadInput},
	{"ListSessionsAndItemSpend", TestListSessionsAndItemSpend},
	{"SessionsRecordThePullRequestTheyWork", TestSessionsRecordThePullRequestTheyWork},
	{"SpendByHarnessAndRepositoryWindow", TestSpendByHarnessAndRepositoryWindow},
	{"SessionsRecordTheirConfinementAndTranscriptCut", TestSessionsRecordTheirConfinementAndTranscriptCut},
	{"CriticRunsAreRecordedWithTheirEvent", TestCriticRunsAreRecordedWithTheirEvent},
	{"CriticRunRecordsRefuseBadInput", TestCriticRunRecordsRefuseBadInput},
	{"CriticRunsCannotBeRewritten", TestCriticRunsCannotBeRewritten},
	{"CachedPagesRoundTripAndSurviveReopening", TestCachedPagesRoundTripAndSurviveReopening},
	{"CachedPagesAgeOutAndAreBounded", TestCachedPagesAgeOutAndAreBounded},
	{"SavingAPageInsideAnUpdateDoesNotWait", TestSavingAPageInsideAnUpdateDoesNotWait},
	{"ACachedPageBeingWrittenIsStillFound", TestACachedPageBeingWrittenIsStillFound},
	{"ACachedPageKeyMayHoldAnyByte", TestACachedPageKeyMayHoldAnyByte},
	{"DependencyReadsKeepTheLatestReadOfEachItem", TestDependencyReadsKeepTheLatestReadOfEachItem},
	{"SessionStopIsRecordedOnceAndApplied", TestSessionStopIsRecordedOnceAndApplied},
	{"UpdateConcurrentGoroutines", TestUpdateConcurrentGoroutines},
	{"UpdateConcurrentHandlesSameStore", TestUpdateConcurrentHandlesSameStore},
	{"AWakeReachesEveryListenerOfTheStore", TestAWakeReachesEveryListenerOfTheStore},
	{"AWakeRefIsChecked", TestAWakeRefIsChecked},
	{"ALeaseIsHeldByOneOwnerAndChangesHandsOnlyWhenItExpires", TestALeaseIsHeldByOneOwnerAndChangesHandsOnlyWhenItExpires},
	{"AStaleFenceIsRefusedAndTheNewHolderWrites", TestAStaleFenceIsRefusedAndTheNewHolderWrites},
	{"ConcurrentTakersGetEachItemOnce", TestConcurrentTakersGetEachItemOnce},
}

func TestContractOnPostgres(t *testing.T) {
	onPostgres = true
	defer func() { onPostgres = false }()
	tempLocation(t) // skips (or fails under CI) without a server
	for _, c := range contract {
		t.Run(c.name, c.fn)
	}
}
