/**
 * How sure the index is that a hit fits the query, from features that do not depend on the corpus's size or on raw
 * BM25 magnitudes, mapped to [0,1] by a logistic model fitted on two independent labelled corpora of real skills
 * (bench/retrieval/calibrate.mjs prints these numbers; docs/search.md and decision 0265 say how they were obtained).
 */
export interface ConfidenceFeatures {
  /** Share of the query's weight (sum of its terms' idf) that this skill matches anywhere. */
  coverage: number;
  /** The same, counting only matches in the skill's metadata (name, description, when-to-use, triggers). */
  metadataCoverage: number;
  /** The score over the most any skill could score for this query (every term saturated): in [0,1). */
  normalisedScore: number;
  /** The score over the best hit's score: 1 for the best hit. */
  relativeScore: number;
  /** Share of the query's weight found in the skill's name. */
  nameCoverage: number;
}

export interface ConfidenceModel {
  bias: number;
  weights: Readonly<Record<keyof ConfidenceFeatures, number>>;
}

/** Fitted on bench/retrieval's two tuning corpora, each weighing the same (docs/search.md, "Confidence"). */
export const DEFAULT_CONFIDENCE_MODEL: ConfidenceModel = {
  bias: -10.211,
  weights: {
    coverage: 1.852,
    metadataCoverage: 1.029,
    normalisedScore: 1.498,
    relativeScore: 7.74,
    nameCoverage: 1.94,
  },
};

/**
 * The default `minConfidence` of `skillport search` and the agent's search tool: 0, every ranked hit is shown with its
 * confidence. No threshold kept 95% of right top hits on a corpus it was not tuned on (decision 0265), so abstaining
 * is for callers that ask for it with a threshold of their own.
 */
export const DEFAULT_MIN_CONFIDENCE = 0;

export function confidenceOf(features: ConfidenceFeatures, model: ConfidenceModel = DEFAULT_CONFIDENCE_MODEL): number {
  let z = model.bias;
  for (const key of Object.keys(model.weights) as Array<keyof ConfidenceFeatures>)
    z += model.weights[key] * features[key];
  return 1 / (1 + Math.exp(-z));
}
