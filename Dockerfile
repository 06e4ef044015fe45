FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
# The Temporal CLI is not needed in a split deployment (TEMPORAL_ADDRESS points at a cluster).
RUN npm ci --omit=dev --ignore-scripts
COPY . .
ENV NODE_ENV=production
CMD ["npm", "start"]
