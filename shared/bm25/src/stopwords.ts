/**
 * Function words that carry no meaning for retrieval. Particles that change a verb's
 * sense ("log out", "back up", "turn off", "scale down") are deliberately not here.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against am an and are as at be because been before being below between
  both but by can could did do does doing down during each few for from further had has have having he her
  here hers him his how i if in into is it its itself just me more most my myself no nor not now of on
  off once only or other out our over ours ourselves own same she should so some such than that the their theirs
  them themselves then there these they this those through to too under until up very was we were what
  when where which while who whom why will with would you your yours yourself yourselves`.split(/\s+/),
);
