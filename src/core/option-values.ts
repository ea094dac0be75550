/**
 * An option's values in a program's words: `--long=v` and `--long v`, and a short option anywhere
 * in a cluster, its value the rest of the cluster or the next word (`-o v`, `-ov`, `-so v`, `-sov`;
 * the first of `shortLetters` in a cluster takes it). Generous on purpose: a word misread as a
 * value costs a look at it, a value missed is a bypass.
 */
export function optionValues(args: readonly string[], shortLetters: string, long: readonly string[]): string[] {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const next = args[i + 1];
    for (const name of long) {
      if (a === name && next !== undefined) values.push(next);
      else if (a.startsWith(`${name}=`)) values.push(a.slice(name.length + 1));
    }
    if (!/^-[^-]/.test(a)) continue;
    for (let j = 1; j < a.length; j++) {
      if (!shortLetters.includes(a[j] as string)) continue;
      const rest = a.slice(j + 1);
      if (rest !== "") values.push(rest);
      else if (next !== undefined) values.push(next);
      break;
    }
  }
  return values;
}
