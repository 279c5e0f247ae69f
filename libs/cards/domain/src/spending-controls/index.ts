// What the controls hold, the MCC groups, the windows and `evaluateControls` are the contract's (the
// authorizations context decides on them); re-exported for the cards domain's own use.
export {
  evaluateControls,
  isMcc,
  isMccGroupName,
  MCC_GROUP_NAMES,
  MCC_GROUPS,
  mccGroupHolds,
  PROGRAM_DEFAULT_SPENDING_CONTROLS,
  RESTRICTED_MCC_GROUPS,
  SPENDING_LIMIT_INTERVALS,
  WINDOW_INTERVALS,
  windowOf,
  type AuthorizationToEvaluate,
  type ControlsDecision,
  type FailedControl,
  type MccEntry,
  type MccGroupName,
  type SpendingControls,
  type SpendingLimit,
  type SpendingLimitInterval,
  type SpendingWindow,
  type SpendRecord,
  type WindowInterval,
} from '@cip/cards/contract';
export * from './spending-controls';
