import type { z } from "zod";

/** `.meta()` keys for an input field. */
export type InputSchemaMetaType = z.GlobalMeta & {
  /** Model-facing text explaining the field (the `title`/`description` are for people). */
  toolDescription?: string;
  /** True when the model should fill this field from the conversation. */
  isToolParam?: boolean;
};

/** `.meta()` keys for an output field. */
export type OutputSchemaMetaType = z.GlobalMeta;

/** `.meta()` keys for a secret field. */
export type SecretSchemaMetaType = z.GlobalMeta & {
  /** True when the host must store the value encrypted and never show it again. */
  isSecret: boolean;
};
