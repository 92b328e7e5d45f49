/**
 * Every credential and version-control name the one secret-file rule covers (decision 0255), as the tests of each
 * consumer use it: pack, export, the agent's load tool and code-execution uploads. Each row is
 * `[file path inside a skill, deciding pattern, what pack lists as excluded]` — for a folder rule, the folder.
 */
export const SECRET_FILE_CASES: ReadonlyArray<readonly [file: string, pattern: string, excluded: string]> = [
  // environment
  [".env", ".env", ".env"],
  ["config/.env", ".env", "config/.env"],
  [".ENV", ".env", ".ENV"],
  [".env.local", ".env.*", ".env.local"],
  [".Env.Production", ".env.*", ".Env.Production"],
  [".envrc", ".envrc", ".envrc"],
  // private keys, key rings, password stores
  ["server.key", "*.key", "server.key"],
  ["certs/cert.PEM", "*.pem", "certs/cert.PEM"],
  ["putty.ppk", "*.ppk", "putty.ppk"],
  ["id_rsa", "id_rsa*", "id_rsa"],
  ["keys/id_ed25519", "id_ed25519*", "keys/id_ed25519"],
  ["keys/id_ecdsa.pub", "id_ecdsa*", "keys/id_ecdsa.pub"],
  ["id_dsa", "id_dsa*", "id_dsa"],
  ["vault.kdbx", "*.kdbx", "vault.kdbx"],
  ["secring.gpg", "secring.*", "secring.gpg"],
  [".ssh/config", ".ssh/", ".ssh/"],
  ["home/.gnupg/private-keys-v1.d/a.key", ".gnupg/", "home/.gnupg/"],
  [".password-store/mail.gpg", ".password-store/", ".password-store/"],
  // key stores
  ["certs/client.p12", "*.p12", "certs/client.p12"],
  ["client.PFX", "*.pfx", "client.PFX"],
  ["java/keys.jks", "*.jks", "java/keys.jks"],
  ["android.keystore", "*.keystore", "android.keystore"],
  // cloud and tool credentials
  ["credentials.json", "credentials.json", "credentials.json"],
  ["service-account.json", "service-account*.json", "service-account.json"],
  ["gcp/service-account-key.json", "service-account*.json", "gcp/service-account-key.json"],
  ["my-project-service-account.json", "*-service-account*.json", "my-project-service-account.json"],
  ["application_default_credentials.json", "application_default_credentials.json", "application_default_credentials.json"],
  [".aws/credentials", ".aws/", ".aws/"],
  ["home/.aws/sso/cache/token.json", ".aws/", "home/.aws/"],
  [".azure/msal_token_cache.json", ".azure/", ".azure/"],
  [".config/gcloud/credentials.db", ".config/gcloud/", ".config/gcloud/"],
  [".config/gh/hosts.yml", ".config/gh/", ".config/gh/"],
  ["home/.config/gh/hosts.yml", ".config/gh/", "home/.config/gh/"],
  [".docker/config.json", ".docker/", ".docker/"],
  [".dockercfg", ".dockercfg", ".dockercfg"],
  [".kube/config", ".kube/", ".kube/"],
  [".kube/cache/token", ".kube/", ".kube/"],
  [".git-credentials", ".git-credentials", ".git-credentials"],
  [".netrc", ".netrc", ".netrc"],
  ["_netrc", "_netrc", "_netrc"],
  [".npmrc", ".npmrc", ".npmrc"],
  ["scripts/.npmrc", ".npmrc", "scripts/.npmrc"],
  [".pypirc", ".pypirc", ".pypirc"],
  [".pgpass", ".pgpass", ".pgpass"],
  [".my.cnf", ".my.cnf", ".my.cnf"],
  [".mylogin.cnf", ".mylogin.cnf", ".mylogin.cnf"],
  [".s3cfg", ".s3cfg", ".s3cfg"],
  [".boto", ".boto", ".boto"],
  [".vault-token", ".vault-token", ".vault-token"],
  ["site/.htpasswd", ".htpasswd", "site/.htpasswd"],
  // infrastructure state and variables
  ["infra/terraform.tfstate", "*.tfstate", "infra/terraform.tfstate"],
  ["terraform.tfstate.backup", "*.tfstate.*", "terraform.tfstate.backup"],
  ["terraform.tfvars", "*.tfvars", "terraform.tfvars"],
  ["prod.auto.tfvars", "*.tfvars", "prod.auto.tfvars"],
  ["vars.tfvars.json", "*.tfvars.json", "vars.tfvars.json"],
  [".terraform/providers/x", ".terraform/", ".terraform/"],
  [".terraformrc", ".terraformrc", ".terraformrc"],
  ["terraform.rc", "terraform.rc", "terraform.rc"],
  // application secret files
  ["secrets.yaml", "secrets.yaml", "secrets.yaml"],
  ["deploy/secrets.yml", "secrets.yml", "deploy/secrets.yml"],
  ["Secrets.JSON", "secrets.json", "Secrets.JSON"],
  [".streamlit/secrets.toml", "secrets.toml", ".streamlit/secrets.toml"],
  ["wp-config.php", "wp-config.php", "wp-config.php"],
  // histories
  [".bash_history", ".*_history", ".bash_history"],
  [".psql_history", ".*_history", ".psql_history"],
  // version control
  [".git/config", ".git", ".git/"],
  [".GIT/config", ".git", ".GIT/"],
  ["vendor/.git/config", ".git", "vendor/.git/"],
  [".hg/hgrc", ".hg", ".hg/"],
  [".svn/entries", ".svn", ".svn/"],
  [".bzr/branch/branch.conf", ".bzr", ".bzr/"],
];

/** Names that look close but are ordinary skill files: every consumer keeps them. */
export const NOT_SECRET_FILES: readonly string[] = [
  ".env.example", "config/.env.sample", ".env.local.template", "secrets.yaml.example", "env.py", "keys.md", "secrets.md",
  "secrets.py", "service.json", "history.md", "scripts/gitignore.py", ".gitignore", ".gitattributes", "docs/kube.md",
  "id_card.py", "terraform.md", "npmrc.md", "references/credentials.md", "wp-config-sample.php",
];

/** A Google Cloud service-account key in the shape the content rule recognises, under a harmless name. */
export const SERVICE_ACCOUNT_KEY = JSON.stringify({
  type: "service_account",
  project_id: "demo",
  private_key_id: "0123456789abcdef",
  private_key: "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
  client_email: "x@demo.iam.gserviceaccount.com",
}, null, 2);
