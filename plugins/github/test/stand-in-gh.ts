// The stand-in gh lives in @orange/test-support; this door stays until plugins/reactions' tests import it from there.
export { standInGh, type GhAnswers, type StandInGh } from '@orange/test-support';
