/** The scripted player lines of the showcase, in order. Turn 2 states a lasting requirement. */
export const SHOWCASE_LINES = [
  '（夜雾中走上码头）你好，请问这里就是雾港吗？钟声是从哪里来的？',
  '从现在起莉娅都用短句回答，少用比喻。',
  '灯塔的灯为什么今晚这么暗？',
] as const;

/** Index of the line that states the lasting requirement. */
export const REQUIREMENT_TURN = 1;
