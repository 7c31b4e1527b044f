/**
 * Obviously fake credentials in the exact formats real ones have (prefixes, lengths, alphabets,
 * checksum-free), one per kind an agent transcript commonly leaks. Built from a fixed filler so that
 * no real key can be among them; the letters spell FAKE where the format leaves room.
 */
const fill = (n: number, alphabet = 'FAKEfake0123456789QWERTYqwerty'): string => {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[(i * 7 + 3) % alphabet.length];
  return s;
};
const b64 = (n: number): string => fill(n, 'FAKEfakeKEYkeyQWERTYqwerty0123456789+/');

export const FAKE_SECRETS: Readonly<Record<string, string>> = {
  'openai project key': `sk-proj-${fill(74)}T3BlbkFJ${fill(74)}`,
  'openai legacy key': `sk-${fill(20)}T3BlbkFJ${fill(20)}`,
  'openai key without marker': `sk-${fill(48)}`,
  'anthropic key': `sk-ant-api03-${fill(93)}AA`,
  'aws access key id': 'AKIAFAKEFAKEFAKE2345',
  'aws session key id': 'ASIAFAKEFAKEFAKE2345',
  'aws secret access key': `aws_secret_access_key = "${b64(40).replace(/[+/]/g, 'Z')}"`,
  'github classic token': `ghp_${fill(36)}`,
  'github fine-grained token': `github_pat_${fill(82, 'FAKEfake0123456789_QWERTY')}`,
  'github oauth token': `gho_${fill(36)}`,
  'gitlab token': `glpat-${fill(20)}`,
  'slack bot token': `xoxb-123456789012-1234567890123-${fill(24)}`,
  'slack webhook': `https://hooks.slack.com/services/T${fill(8, 'FAKE0123456789')}/B${fill(8, 'FAKE0123456789')}/${fill(24)}`,
  'stripe live key': `sk_live_${fill(24)}`,
  'stripe restricted key': `rk_live_${fill(24)}`,
  jwt: `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJGQUtFIiwibmFtZSI6IkZha2UgVXNlciJ9.${fill(43, 'FAKEfake0123456789_-')}`,
  'pem private key': `-----BEGIN RSA PRIVATE KEY-----\nMIIE${b64(60)}\n${b64(64)}\n${b64(40)}==\n-----END RSA PRIVATE KEY-----`,
  'npm token': `npm_${fill(36)}`,
  'google api key': `AIza${fill(35)}`,
  'postgres url with password': `postgres://app:${fill(16)}@db.example.com:5432/app`,
};

/** The part of each fixture that must not survive redaction (the secret, not its label). */
export const SECRET_CORE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(FAKE_SECRETS).map(([k, v]) => {
    if (k === 'aws secret access key') return [k, /"(.+)"/.exec(v)![1]!];
    if (k === 'pem private key') return [k, v.split('\n')[2]!];
    if (k === 'postgres url with password') return [k, /:([^:@]+)@/.exec(v)![1]!];
    return [k, v];
  }),
);
