/**
 * How sure the index is that a hit fits the query, from features that do not depend on the corpus's size or on raw
 * BM25 magnitudes, mapped to [0,1] by a logistic model fitted on the training half of bench/retrieval's labelled set
 * (bench/retrieval/evaluate.mjs --calibrate prints these numbers; docs/search.md says how they were obtained).
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

/** Fitted on the train split of bench/retrieval (see docs/search.md, "Confidence"). */
export const DEFAULT_CONFIDENCE_MODEL: ConfidenceModel = {
  bias: -8.295,
  weights: { coverage: 0.339, metadataCoverage: 1.358, normalisedScore: 2.827, relativeScore: 6.191, nameCoverage: 1.923 },
};

/** The default `minConfidence` of `search` callers that want abstention, chosen on the same training split. */
export const DEFAULT_MIN_CONFIDENCE = 0.3;

export function confidenceOf(features: ConfidenceFeatures, model: ConfidenceModel = DEFAULT_CONFIDENCE_MODEL): number {
  let z = model.bias;
  for (const key of Object.keys(model.weights) as Array<keyof ConfidenceFeatures>) z += model.weights[key] * features[key];
  return 1 / (1 + Math.exp(-z));
}
