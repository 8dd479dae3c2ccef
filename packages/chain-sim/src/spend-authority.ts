// The spend-authority rule is note-ownership cryptography and lives in @venue/notes, where the SDK
// can use it too; re-exported here so chain-sim's users keep one import.
export { spendAuthorityOf } from '@venue/notes';
