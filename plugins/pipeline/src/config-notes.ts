import type { Orange } from '@orange/core';
import { pipelineOf } from './instance.js';
import { breakerToReach, tiersFor, tiersReached } from './policy.js';

/**
 * What `orange doctor` says about the pipeline's settings, as notes (worth knowing, not wrong): no
 * verification checks (every task then passes verification), model tiers the circuit breaker keeps
 * out of reach, and tiers whose runs cost $0 against the budget because the harness cannot price
 * them. Only harnesses that are installed or configured.
 */
export async function pipelineConfigNotes(orange: Orange): Promise<string[]> {
  const { settings } = pipelineOf(orange);
  const notes: string[] = [];
  if (settings.verify.length === 0) {
    notes.push(
      "pipeline: no verification checks are configured, so every task passes verification once its phases report success; add the project's checks, e.g. pipeline({ verify: [['npm', 'test']] }) (docs/workflows.md, departures from seed 002)",
    );
  }
  for (const harness of orange.harnesses.values()) {
    if (harness.internal || !harness.headless) continue;
    const installed = await harness.installed().catch(() => false);
    if (!installed && orange.config.harness !== harness.name) continue;
    const tiers = tiersFor(settings, harness.name, harness.headless.tiers);
    const reached = tiersReached(settings, tiers.length);
    if (reached < tiers.length) {
      const out = tiers.slice(reached);
      const top = tiers.length - 1;
      const reach = out.length === 1 ? `breaker ${breakerToReach(settings, top)} reaches it` : `breaker ${breakerToReach(settings, reached)} reaches ${tiers[reached]}, breaker ${breakerToReach(settings, top)} reaches ${tiers[top]}`;
      notes.push(
        `pipeline: with attempts ${settings.attempts} and breaker ${settings.breaker}, a ${harness.name} task that keeps failing from tier ${tiers[0]} ends failed before it reaches ${out.join(', ')} (${reach}; docs/workflows.md, departure 4)`,
      );
    }
    const unpriced = tiers.filter((tier) => harness.headless?.canPrice?.(tier || null) === false);
    if (unpriced.length > 0) {
      notes.push(
        `pipeline: harness ${harness.name} has no price for ${unpriced.map((t) => t || '(its default model)').join(', ')}: while a budget is in force (default $${settings.budgetUsd.toFixed(2)} a task) those runs count $0; add them to its prices`,
      );
    }
  }
  return notes;
}
